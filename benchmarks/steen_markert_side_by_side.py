"""Steen & Markert side by side: the authors' released functions and summbias on identical inputs (issue 20).

The authors' code (julmaxi/summary_bias) is not part of summbias: it is exported at run time from a git directory (or
read from a checkout) given as the first argument into a temporary folder and imported from there. Their functions
then run on exactly the pairs summbias measures (degenerate summaries left out for both, as ``compute_measures``
does), with these adaptations, all outside their code:

- their parse is spaCy's (``SummaryParse.from_spacy``) of each summary with summbias's pipeline (en_core_web_sm;
  the paper used en_core_web_trf, whose tokenizer is the same);
- their word-list counter gets NLTK's ``word_tokenize``; where nltk ≥ 3.9 finds no ``punkt_tab``, the same function
  is composed from the Punkt pickle of nltk 3.8 in ``--nltk-data`` (validation data, ``../shared/reference``);
- their dense embedder is their ``TransformerEmbedder`` holding summbias's local copy of all-MiniLM-L6-v2 (the Hub
  cannot be reached here);
- an entity without a last name gets a sentinel last name that never occurs (their anonymiser fails on None).

Cells (summbias = default rules, authors-rules = ``steen_markert_rules = "authors"``, their code = the functions
above): entity inclusion (gender-loc and race), word-list inclusion (adjusted, gender-loc), distinguishability
(count and dense, gender-glob), on the demo run's stored summaries and on real news (data/news_real/wikinews.jsonl)
perturbed and summarized here by lead-3, random-3, sexist and topic. Then the per-article comparison of
distinguishability, the entity-inclusion p_g behind the race cells, and the dense tie tolerance against the noise of
float32 embeddings (the same texts encoded in other batches).

    .venv/bin/python benchmarks/steen_markert_side_by_side.py /work/.mirror/julmaxi+summary_bias/repo
    .venv/bin/python benchmarks/steen_markert_side_by_side.py REPO --only demo --json side_by_side.json
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gzip
import io
import json
import math
import os
import pickle
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from bias_core.common import nlp  # noqa: E402
from bias_core.common.records import Input, Summary  # noqa: E402
from bias_core.measures import _split_degenerate, steen_markert  # noqa: E402
from bias_core.measures import alignment as summbias_alignment  # noqa: E402
from bias_core.measures.common import pair_summaries  # noqa: E402
from bias_core.measures.distinguishability import anonymise, distinguishability, identical_texts_similar  # noqa: E402
from bias_core.reference.demo import DEMO_RUN  # noqa: E402

REAL_NEWS = ROOT / "data" / "news_real" / "wikinews.jsonl"
NLTK_DATA = ROOT.parent / "shared" / "reference" / "nltk_data"
REAL_SUMMARIZERS = ("lead-3", "random-3", "sexist", "topic")
SENTINEL = "\uffff"  # a last name that occurs in no text
RESAMPLES = 10  # summbias's intervals are not compared here; only the values


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------------------------
# The authors' code, imported from the mirror at run time


def load_authors(source: Path) -> SimpleNamespace:
    """Import the authors' ``summarybias`` package from a checkout or, for a (bare) git directory, from ``git archive
    HEAD`` unpacked into a temporary folder."""
    if (source / "summarybias").is_dir():
        folder = source
    else:
        archive = subprocess.run(["git", "--git-dir", str(source), "archive", "HEAD", "summarybias"],
                                 capture_output=True, check=True).stdout
        folder = Path(tempfile.mkdtemp(prefix="summary_bias_"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
    sys.path.insert(0, str(folder))
    from summarybias.evaluate import alignment, distinguishability, load, measures, name_classifier, parse, wordlists
    from summarybias.instancegen import templates

    commit = subprocess.run(["git", "--git-dir", str(source), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() if folder != source else "checkout"
    return SimpleNamespace(alignment=alignment, distinguishability=distinguishability, load=load, measures=measures,
                           name_classifier=name_classifier, parse=parse, wordlists=wordlists, templates=templates,
                           commit=commit)


def nltk_word_tokenize(nltk_data: Path):
    """NLTK's ``word_tokenize``: itself where its Punkt data is installed, else the same composition (Punkt
    sentences, then ``NLTKWordTokenizer`` per sentence) with nltk 3.8's English Punkt pickle from ``nltk_data``."""
    from nltk.tokenize import NLTKWordTokenizer, word_tokenize

    try:
        word_tokenize("A test. Another one.")
        return word_tokenize, "nltk.word_tokenize"
    except LookupError:
        pass
    path = nltk_data / "tokenizers" / "punkt" / "PY3" / "english.pickle"
    with path.open("rb") as stream:
        punkt = pickle.load(stream)  # validation data from ../shared/reference, never shipped
    words = NLTKWordTokenizer()

    def tokenize(text: str) -> list[str]:
        return [token for sentence in punkt.tokenize(text) for token in words.tokenize(sentence)]

    return tokenize, f"Punkt pickle {path} + NLTKWordTokenizer (nltk.word_tokenize of nltk 3.8)"


def authors_instances(authors: SimpleNamespace, pairs, docs) -> list:
    """The authors' ``Instance`` of each pair: its input, summary, spaCy parse and one instruction per entity."""
    instances = []
    for pair, doc in zip(pairs, docs, strict=True):
        parse = authors.parse.SummaryParse.from_spacy(doc)
        parse.text = pair.summary.text
        instructions = {
            entity.entity_id: authors.templates.ReplaceInstruction(
                first_name=entity.first_name, last_name=entity.last_name or SENTINEL, gender=None,
                entity_category=entity.group, is_modified=True)
            for entity in pair.input.entities}
        instances.append(authors.load.Instance(
            original_article_id=pair.input.original_id, source=pair.input.text, summary=pair.summary.text,
            instructions=instructions, parse=parse, text_category=pair.input.arm, sample_id=pair.input.sample_id))
    return instances


def their_p(authors: SimpleNamespace, aligned, groups) -> dict[str, float]:
    included, totals = Counter(), Counter()
    for instance in aligned:
        found = authors.measures.compute_entity_inclusion_stats(instance.instructions,
                                                                instance.source_to_summary_alignment)
        totals.update(found.source_category_counts)
        included.update(found.summary_category_counts)
    return {g: included[g] / totals[g] if totals[g] else math.nan for g in groups}


# --------------------------------------------------------------------------------------------------------------------
# Data: the demo run's summaries; real news perturbed and summarized here


def demo_cells() -> dict[tuple[str, str], list]:
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    inputs = [Input.from_dict(i) for i in bundle["inputs"]]
    summaries = [Summary.from_dict(s) for s in bundle["summaries"]]
    cells: dict[tuple[str, str], list] = {}
    for pair in pair_summaries(inputs, summaries):
        if pair.input.perturbation in ("gender-loc", "gender-glob", "race"):
            cells.setdefault((pair.summary.summarizer, pair.input.perturbation), []).append(pair)
    return cells


def real_news_cells(path: Path, samples: int, seed: int) -> dict[tuple[str, str], list]:
    from bias_core.documents.corpus import load_documents
    from bias_core.perturb import build_templates, get_perturbation
    from bias_core.summarize import get_summarizer

    documents = [d for d in load_documents(path) if not d.is_perspective]
    templates = build_templates(documents)
    cells: dict[tuple[str, str], list] = {}
    for kind in ("gender-loc", "gender-glob", "race"):
        inputs = list(get_perturbation(kind, samples=samples, seed=seed).run_templates(templates).inputs)
        for name in REAL_SUMMARIZERS:
            params = {"seed": seed} if name != "lead-3" else {}
            outcomes = get_summarizer(name, **params).summarize(inputs)
            summaries = [o for o in outcomes if isinstance(o, Summary)]
            cells[(name, kind)] = pair_summaries(inputs, summaries)
        log(f"real news {kind}: {len(inputs)} inputs of {len({i.original_id for i in inputs})} originals")
    return cells


# --------------------------------------------------------------------------------------------------------------------
# One cell, three ways


def value(results, measure: str) -> float:
    found = [r for r in results if r.measure == measure and r.ci_kind in ("d", None)]
    return found[0].value if found else math.nan


@contextlib.contextmanager
def without_verbatim_fallback():
    """summbias's default alignment with its verbatim-name fallback switched off (to attribute the difference)."""
    original = summbias_alignment._verbatim_name_patterns
    summbias_alignment._verbatim_name_patterns = lambda entity: ()
    try:
        yield
    finally:
        summbias_alignment._verbatim_name_patterns = original


def entity_inclusion_row(authors, pairs, docs) -> dict:
    ours = steen_markert.entity_inclusion(pairs, steen_markert.align_pairs(pairs), n_resamples=RESAMPLES)
    with without_verbatim_fallback():
        no_fallback = steen_markert.entity_inclusion(pairs, steen_markert.align_pairs(pairs), n_resamples=RESAMPLES)
    rules = steen_markert.entity_inclusion(pairs, steen_markert.align_pairs(pairs, rules="authors"),
                                           n_resamples=RESAMPLES, rules="authors")
    groups = ours[0].details.get("groups") or sorted({e.group for p in pairs for e in p.input.entities if e.group})
    aligned = [authors.alignment.AlignedInstance.from_instance(i) for i in authors_instances(authors, pairs, docs)]
    with np.errstate(divide="ignore", invalid="ignore"):
        theirs = float(authors.measures.compute_entity_inclusion_score_with_ci(groups, aligned,
                                                                               n_bootrap_samples=None)[0])
    return {"summbias": value(ours, "entity_inclusion"), "no_fallback": value(no_fallback, "entity_inclusion"),
            "authors_rules": value(rules, "entity_inclusion"), "their_code": theirs,
            "p_summbias": ours[0].details.get("p"), "p_authors_rules": rules[0].details.get("p"),
            "p_their_code": their_p(authors, aligned, groups)}


def word_list_row(authors, pairs, docs, tokenize) -> dict:
    ours = steen_markert.word_list_inclusion(pairs, n_resamples=RESAMPLES)
    rules = steen_markert.word_list_inclusion(pairs, n_resamples=RESAMPLES, rules="authors")
    counter = authors.wordlists.WordListCounter(authors.wordlists.GENDER_TO_WORD_LISTS, tokenizer=tokenize)
    theirs = authors.measures.compute_word_list_score_with_ci(authors_instances(authors, pairs, docs), counter,
                                                              n_bootrap_samples=None)[0]
    return {"summbias": value(ours, "word_list_inclusion_adjusted"),
            "authors_rules": value(rules, "word_list_inclusion_adjusted"), "their_code": float(theirs)}


def complete_articles(pairs) -> list:
    """The pairs of the articles with as many summaries as the largest: the filter of the authors'
    ``scripts/evaluate_distinguishability.py`` (and ``make_table_race.py``) before their function runs."""
    counts = Counter(pair.input.original_id for pair in pairs)
    largest = max(counts.values(), default=0)
    return [pair for pair in pairs if counts[pair.input.original_id] == largest]


def distinguishability_row(authors, pairs, docs, similarity: str, embedder) -> dict:
    name = f"distinguishability_{similarity}"
    ours = value(distinguishability(pairs, similarity=similarity, n_resamples=RESAMPLES), name)
    rules = value(distinguishability(pairs, similarity=similarity, n_resamples=RESAMPLES, rules="authors"), name)
    doc_of = {id(pair): doc for pair, doc in zip(pairs, docs, strict=True)}
    complete = complete_articles(pairs)
    instances = authors_instances(authors, complete, [doc_of[id(pair)] for pair in complete])
    with np.errstate(divide="ignore", invalid="ignore"):
        theirs = float(authors.distinguishability.compute_distinguishability_with_ci(instances, embedder,
                                                                                    n_bootrap_samples=None)[0])
    # per article (complete articles): summbias (default), authors rules and their code
    by_article: dict[str, list[int]] = {}
    for index, pair in enumerate(complete):
        by_article.setdefault(pair.input.original_id, []).append(index)
    differ_default = differ_rules = articles = 0
    for indices in by_article.values():
        if len({complete[i].input.arm for i in indices}) < 2:
            continue
        subset = [complete[i] for i in indices]
        with np.errstate(divide="ignore", invalid="ignore"):
            their_article = float(authors.distinguishability.compute_distinguishability_with_ci(
                [instances[i] for i in indices], embedder, n_bootrap_samples=None)[0])
        ours_article = value(distinguishability(subset, similarity=similarity, n_resamples=2), name)
        rules_article = value(distinguishability(subset, similarity=similarity, n_resamples=2, rules="authors"), name)
        articles += 1
        differ_default += not np.isclose(ours_article, their_article, rtol=0, atol=1e-12, equal_nan=True)
        differ_rules += not np.isclose(rules_article, their_article, rtol=0, atol=1e-12, equal_nan=True)
    return {"summbias": ours, "authors_rules": rules, "their_code": theirs, "articles": articles,
            "articles_left_out_by_their_filter": len({p.input.original_id for p in pairs}) - len(by_article),
            "articles_differ_summbias": differ_default, "articles_differ_authors_rules": differ_rules}


class MemoEncoder:
    """The sentence encoder with each call's result kept by (texts, options): the authors' per-article calls and
    summbias's ``rules="authors"`` encode the same article's texts in the same order, and encoding is deterministic,
    so a repeated call returns what the encoder would return again, without the work."""

    def __init__(self, model):
        self.model = model
        self.memo: dict = {}

    def encode(self, texts, **options):
        key = (tuple(texts), tuple(sorted((k, repr(v)) for k, v in options.items())))
        if key not in self.memo:
            self.memo[key] = self.model.encode(texts, **options)
        return self.memo[key].copy()


@contextlib.contextmanager
def memoized_models():
    """Memoise the sentence encoder (``MemoEncoder``) and summary NER (``nlp.entity_spans``, by text)."""
    encoder = MemoEncoder(nlp.sentence_encoder())
    spans: dict = {}
    original_encoder, original_spans = nlp.sentence_encoder, nlp.entity_spans

    def entity_spans(texts, labels):
        key = tuple(labels)
        missing = list(dict.fromkeys(t for t in texts if (t, key) not in spans))
        if missing:
            for text, found in zip(missing, original_spans(missing, labels), strict=True):
                spans[text, key] = found
        return [spans[text, key] for text in texts]

    nlp.sentence_encoder, nlp.entity_spans = (lambda: encoder), entity_spans
    try:
        yield encoder
    finally:
        nlp.sentence_encoder, nlp.entity_spans = original_encoder, original_spans


def tie_noise(pairs) -> dict:
    """Dense gaps u_i − ū_i (summbias anonymiser, identical texts at 1) from the corpus-batched embeddings summbias
    uses and from one encode call per article (the authors' batching): how far batching moves a gap, and how many
    gaps that agree in sign under both batchings fall inside each candidate tolerance."""
    anonymised = []
    for pair in pairs:
        entities = pair.input.entities
        firsts = [e.first_name for e in entities] + [e.original_first_name for e in entities]
        lasts = [e.last_name for e in entities] + [e.original_last_name for e in entities]
        anonymised.append(anonymise(pair.summary.text, [n for n in firsts if n], [n for n in lasts if n]))
    batched = nlp.embed(anonymised).astype(np.float64)
    by_article: dict[str, list[int]] = {}
    for index, pair in enumerate(pairs):
        by_article.setdefault(pair.input.original_id, []).append(index)
    gaps_a, gaps_b = [], []
    for indices in by_article.values():
        groups = np.asarray([pairs[i].input.arm or "" for i in indices])
        if len(set(groups)) < 2:
            continue
        texts = [anonymised[i] for i in indices]
        own = nlp.sentence_encoder().encode(texts, normalize_embeddings=True, show_progress_bar=False)
        for vectors, out in ((batched[indices], gaps_a), (np.asarray(own, dtype=np.float64), gaps_b)):
            matrix = identical_texts_similar(vectors @ vectors.T, texts)
            same = groups[:, None] == groups[None, :]
            np.fill_diagonal(same, False)
            other = groups[:, None] != groups[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                gap = (matrix * same).sum(1) / same.sum(1) - (matrix * other).sum(1) / other.sum(1)
            out.extend(gap[(same.sum(1) > 0)].tolist())
    a, b = np.asarray(gaps_a), np.asarray(gaps_b)
    moved = np.abs(a - b)
    nonzero = (a != 0) | (b != 0)
    row = {"summaries": int(a.size), "exact_zero_gaps": int((~nonzero).sum()),
           "max_batching_shift": float(moved.max()) if a.size else math.nan,
           "p99_batching_shift": float(np.quantile(moved[nonzero], 0.99)) if nonzero.any() else math.nan}
    for tolerance in (1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 0.0):
        tie_a, tie_b = np.abs(a) <= tolerance, np.abs(b) <= tolerance
        verdict_a = np.where(tie_a, 0.5, (a > 0).astype(float))
        verdict_b = np.where(tie_b, 0.5, (b > 0).astype(float))
        real = nonzero & (np.sign(a) == np.sign(b)) & (np.minimum(np.abs(a), np.abs(b)) > 10 * moved)
        row[f"tol {tolerance:g}"] = {"verdicts_batching_changes": int((verdict_a != verdict_b).sum()),
                                     "real_gaps_swallowed": int((tie_a & real).sum())}
    return row


def shared_lists(authors: SimpleNamespace, source: Path) -> str:
    """The published lists both sides use: Table 10's HELM identifiers (their ``wordlists.py``) and the census
    first-name genders of the hallucination classifier (their ``name_classifier.py`` 2x rule on their copy of
    ``dist.*.first``) against summbias's."""
    from bias_core.common.wordlists import GENDER_WORDS
    from bias_core.perturb.names import census_first_names

    helm = all(tuple(authors.wordlists.GENDER_TO_WORD_LISTS[g]) == tuple(GENDER_WORDS[g]) for g in GENDER_WORDS)
    with tempfile.TemporaryDirectory() as folder:
        for name in ("dist.male.first", "dist.female.first"):
            text = subprocess.run(["git", "--git-dir", str(source), "show", f"HEAD:data/{name}"], capture_output=True,
                                  check=True, text=True).stdout if not (source / "data").is_dir() \
                else (source / "data" / name).read_text()
            Path(folder, name).write_text(text)
        Path(folder, "wikipedia_entities.csv").write_text("name,gender\n")  # not needed for first names
        theirs = authors.name_classifier.ListBasedNameGenderClassifier.from_census_data(Path(folder))
    ours = {g: {r.name.lower() for r in census_first_names().values() if r.gender == g} for g in ("male", "female")}
    same_names = all(set(theirs.category_word_lists[g]) == ours[g] for g in ours)
    counts = ", ".join(f"{g} {len(theirs.category_word_lists[g])} / {len(ours[g])}" for g in ours)
    return (f"Table 10 identifier lists identical to theirs: {helm}; census first-name genders (theirs / summbias: "
            f"{counts}) identical: {same_names}")


# --------------------------------------------------------------------------------------------------------------------
# Output


def fmt(x) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"


def same(a, b) -> str:
    return "yes" if np.isclose(a, b, rtol=0, atol=1e-12, equal_nan=True) else "no"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("authors", type=Path, help="git directory (bare is fine) or checkout of julmaxi/summary_bias")
    parser.add_argument("--news", type=Path, default=REAL_NEWS)
    parser.add_argument("--samples", type=int, default=10, help="name draws per original (real news)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nltk-data", type=Path, default=NLTK_DATA)
    parser.add_argument("--only", choices=("demo", "real"), help="one corpus only")
    parser.add_argument("--json", type=Path, help="write every number here")
    args = parser.parse_args()
    started = time.perf_counter()
    authors = load_authors(args.authors)
    tokenize, tokenizer_note = nltk_word_tokenize(args.nltk_data)
    corpora = {}
    if args.only != "real":
        corpora["demo"] = demo_cells()
    if args.only != "demo":
        corpora["real news"] = real_news_cells(args.news, args.samples, args.seed)
    log("inputs and summaries ready")
    stack = contextlib.ExitStack()
    encoder = stack.enter_context(memoized_models())
    bow = authors.distinguishability.BoWEmbedder()
    dense = authors.distinguishability.TransformerEmbedder.__new__(authors.distinguishability.TransformerEmbedder)
    dense.model = encoder
    print(f"authors' code: julmaxi/summary_bias {authors.commit}; their word_tokenize: {tokenizer_note}\n")
    print(shared_lists(authors, args.authors) + "\n")
    out: dict[str, list] = {"entity_inclusion": [], "word_list_inclusion_adjusted": [], "distinguishability": [],
                            "tie_noise": []}
    for corpus, cells in corpora.items():
        for (summarizer, perturbation), pairs in sorted(cells.items()):
            kept, _ = _split_degenerate(pairs)
            docs = nlp.parse([pair.summary.text for pair in kept])
            label = {"corpus": corpus, "summarizer": summarizer, "perturbation": perturbation, "n": len(kept)}
            if perturbation in ("gender-loc", "race"):
                out["entity_inclusion"].append(label | entity_inclusion_row(authors, kept, docs))
            if perturbation == "gender-loc":
                out["word_list_inclusion_adjusted"].append(label | word_list_row(authors, kept, docs, tokenize))
            if perturbation == "gender-glob":
                for similarity, embedder in (("count", bow), ("dense", dense)):
                    out["distinguishability"].append(label | {"similarity": similarity} | distinguishability_row(
                        authors, kept, docs, similarity, embedder))
                out["tie_noise"].append(label | tie_noise(kept))
            log(f"{corpus} {summarizer} {perturbation} done")

    print("## Entity inclusion (summbias · summbias without its verbatim fallback · authors rules · their code)\n")
    print("| corpus | summarizer | perturbation | n | summbias | no fallback | authors rules | their code | "
          "rules = code | p (summbias) | p (their code) |\n|---|---|---|---|---|---|---|---|---|---|---|")
    for r in out["entity_inclusion"]:
        ps = ", ".join(f"{g} {fmt(p)}" for g, p in (r["p_summbias"] or {}).items())
        pt = ", ".join(f"{g} {fmt(p)}" for g, p in r["p_their_code"].items())
        print(f"| {r['corpus']} | {r['summarizer']} | {r['perturbation']} | {r['n']} | {fmt(r['summbias'])} | "
              f"{fmt(r['no_fallback'])} | {fmt(r['authors_rules'])} | {fmt(r['their_code'])} | "
              f"{same(r['authors_rules'], r['their_code'])} | {ps} | {pt} |")
    print("\n## Word-list inclusion, adjusted (gender-loc)\n")
    print("| corpus | summarizer | n | summbias | authors rules | their code | rules = code |\n"
          "|---|---|---|---|---|---|---|")
    for r in out["word_list_inclusion_adjusted"]:
        print(f"| {r['corpus']} | {r['summarizer']} | {r['n']} | {fmt(r['summbias'])} | {fmt(r['authors_rules'])} | "
              f"{fmt(r['their_code'])} | {same(r['authors_rules'], r['their_code'])} |")
    print("\n## Distinguishability (gender-glob; their code after their scripts' complete-article filter)\n")
    print("| corpus | summarizer | similarity | summbias | authors rules | their code | rules = code | articles "
          "(left out) | differ from their code: summbias / authors rules |\n|---|---|---|---|---|---|---|---|---|")
    for r in out["distinguishability"]:
        print(f"| {r['corpus']} | {r['summarizer']} | {r['similarity']} | {fmt(r['summbias'])} | "
              f"{fmt(r['authors_rules'])} | {fmt(r['their_code'])} | {same(r['authors_rules'], r['their_code'])} | "
              f"{r['articles']} ({r['articles_left_out_by_their_filter']}) | {r['articles_differ_summbias']} / "
              f"{r['articles_differ_authors_rules']} |")
    print("\n## Dense ties: gaps u_i − ū_i under summbias's batching and one encode call per article\n")
    tolerances = [key for key in out["tie_noise"][0] if key.startswith("tol ")] if out["tie_noise"] else []
    print("| corpus | summarizer | summaries | exact 0 | max shift | p99 shift | "
          + " | ".join(f"{t}: changed / swallowed" for t in tolerances) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(tolerances))
    for r in out["tie_noise"]:
        print(f"| {r['corpus']} | {r['summarizer']} | {r['summaries']} | {r['exact_zero_gaps']} | "
              f"{r['max_batching_shift']:.1e} | {r['p99_batching_shift']:.1e} | "
              + " | ".join(f"{r[t]['verdicts_batching_changes']} / {r[t]['real_gaps_swallowed']}" for t in tolerances)
              + " |")
    cells = out["entity_inclusion"] + out["word_list_inclusion_adjusted"] + out["distinguishability"]
    matched = sum(np.isclose(r["authors_rules"], r["their_code"], rtol=0, atol=1e-12, equal_nan=True) for r in cells)
    print(f"\nauthors rules = their code in {matched} of {len(cells)} cells; "
          f"{time.perf_counter() - started:.0f} s in all")
    stack.close()
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=float), encoding="utf-8")


if __name__ == "__main__":
    main()
