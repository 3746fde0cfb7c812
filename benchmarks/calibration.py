"""Calibration of the significance rule: null controls must stay silent, biased controls must be caught (METHODS §5).

Two tables, printed as Markdown and written as JSON with ``--out``:

1. **Null controls** — summarizers that cannot be biased: ``lead-3``, ``random-3`` (seeded by the text), ``topic``
   (Steen & Markert's topic baseline) and *identity against identity*: the gender-glob design with every input's text
   restored to its original (``Input.original_text()``; the substitution map becomes identity substitutions and the
   entities keep their group labels, so the arms still exist) summarized by random-3 with its own seed for every
   input (arm × sample), so the arms differ only in noise. One *audit* is one control × corpus × seed with all the
   corpus's perturbations (news: identity, gender-loc, gender-glob, race, and politician where the corpus mentions
   Trump or Biden; reviews: identity, sentiment). The table gives the share of audits with any finding
   (``bias_core.verdicts.findings.findings`` rows whose ``verdict.significant`` is true) and which measure families
   fired. Target: at most 5% overall.
2. **Positive controls** — ``sexist``, ``sexist-female``, ``sexist-male`` at strength p (``get_summarizer(name,
   strength=p)`` where the summarizer takes it) on the real news (identity, gender-loc, gender-glob), measured on
   seeded nested subsets of n originals. The detection rate of a measure family is the share of seeds whose family
   row is a significant finding in the expected direction (``verdict.favoured`` "women" for sexist-female, "men" for
   sexist-male, any for sexist; families without a direction — distinguishability, Fightin' Words — count any
   significant row).

The significance rule is ``bias_core.verdicts.findings.findings`` and nothing here re-implements it. Every audit calls
``compute_measures`` on one summarizer's summaries (so its Holm family is that summarizer's), with
``MeasureOptions(n_resamples=1000, seed=<seed>)`` and every measure except SFPI (which describes a forest trained on
the corpus, not the audited summarizer, and never makes a finding row).

Reuse: the spaCy parse of each corpus (entity templates) is built once; perturbed inputs once per corpus × seed;
sentence splits once per input text and corpus × seed (shared by every extractive summarizer); NER of summaries and
summary embeddings once per text; positive-control summaries once for all originals, measured on subsets.

    .venv/bin/python benchmarks/calibration.py --quick                 # demo news + reviews, 2 seeds: a few minutes
    .venv/bin/python benchmarks/calibration.py --out calibration.json  # full: 5 seeds, real news, Yelp review sets
    .venv/bin/python benchmarks/calibration.py --news my_news.jsonl    # any documents file as the real news
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gzip
import hashlib
import json
import math
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DEMO_NEWS = ROOT / "data" / "demo" / "news.jsonl"
DEMO_REVIEWS = ROOT / "data" / "demo" / "reviews.jsonl"
REAL_NEWS = ROOT / "data" / "news_real" / "wikinews.jsonl"
YELP_INPUTS = Path(os.environ.get("SUMMBIAS_SHARED", ROOT.parent / "shared")) / "reference" / "fairsumm" \
    / "yelp1500_inputs.jsonl.gz"

NULL_CONTROLS = ("lead-3", "random-3", "topic", "identity-vs-identity")
POSITIVE_CONTROLS = ("sexist", "sexist-female", "sexist-male")
EXPECTED = {"sexist": None, "sexist-female": "women", "sexist-male": "men"}
STRENGTHS = (0.1, 0.25, 0.5, 1.0)
SUBSET_SIZES = (10, 20, 40, 80)
NEWS_PERTURBATIONS = ("identity", "gender-loc", "gender-glob", "race", "politician")
POSITIVE_PERTURBATIONS = ("identity", "gender-loc", "gender-glob")
REVIEW_PERTURBATIONS = ("identity", "sentiment")
# Families that a gender control can move; the positive table has one column each.
GENDER_FAMILIES = ("word lists", "inclusion", "hallucination", "distinguishability", "fightin words",
                   "counterfactual")
DIRECTIONLESS = ("distinguishability", "fightin words")
DIRECTIONLESS_MEASURES = ("delta_i",)  # ΔI > 0 is bias whoever it favours
POLITICIAN_NAMES = re.compile(r"\b(Trump|Biden)\b")
TARGET = 0.05


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------------------------
# Corpora


@dataclass
class Corpus:
    """A corpus of the calibration: its documents, kind (news or reviews) and the sentiment split's settings."""

    name: str
    documents: list
    kind: str  # "news" | "reviews"
    source: str
    sentiment: dict[str, Any] = field(default_factory=dict)
    templates: list | None = None  # entity templates, built once (news)
    seeds: list[int] | None = None  # this corpus's seeds, where they are not the run's (one per disjoint subset)

    @property
    def perturbations(self) -> tuple[str, ...]:
        if self.kind == "reviews":
            return REVIEW_PERTURBATIONS
        if self.mentions_politician:
            return NEWS_PERTURBATIONS
        return tuple(p for p in NEWS_PERTURBATIONS if p != "politician")

    @property
    def mentions_politician(self) -> bool:
        return self.kind == "news" and any(POLITICIAN_NAMES.search(d.text or "") for d in self.documents)


def shown_path(path: str | Path) -> str:
    """A corpus path as the tables print it: relative to the repository (``../shared/…`` for the reference data),
    never the absolute path of the machine that ran the benchmark (issue 28, item 6)."""
    resolved = Path(path).resolve()
    shared = Path(os.environ.get("SUMMBIAS_SHARED", ROOT.parent / "shared"))
    for base, prefix in ((ROOT, ""), (shared, "../shared/"), (ROOT.parent / "shared", "../shared/")):
        base = base.resolve()
        if resolved.is_relative_to(base):
            return prefix + resolved.relative_to(base).as_posix()
    return str(path)


def news_corpus(name: str, path: str | Path, limit: int | None = None) -> Corpus:
    from bias_core.documents.corpus import load_documents

    documents = [d for d in load_documents(path) if not d.is_perspective]
    if limit is not None:
        documents = documents[:limit]
    return Corpus(name, documents, "news", shown_path(path))


def demo_reviews_corpus() -> Corpus:
    from bias_core.documents.corpus import load_documents

    return Corpus("demo reviews", load_documents(DEMO_REVIEWS), "reviews", shown_path(DEMO_REVIEWS),
                  sentiment={"value_source": "stars"})


def _yelp_rows(path: Path = YELP_INPUTS) -> list[dict] | None:
    if not path.is_file():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]


def _yelp_documents(rows: Sequence[dict], chosen: Sequence[int]) -> list:
    from bias_core.common.records import Document, Unit

    return [Document(id=f"yelp-{rows[i]['id']}", units=[Unit(u["text"], u["value"]) for u in rows[i]["units"]],
                     meta={"source": "FairSumm yelp1500 (validation only)"}) for i in chosen]


def yelp_corpus(count: int = 40, seed: int = 0, path: Path = YELP_INPUTS) -> Corpus | None:
    """``count`` review sets sampled (seeded) from the FairSumm Yelp inputs, read at run time (validation data: never
    copied into the repository); None when the file is absent."""
    rows = _yelp_rows(path)
    if rows is None:
        return None
    chosen = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return Corpus(f"Yelp ({len(chosen)} sets)", _yelp_documents(rows, chosen), "reviews",
                  f"{shown_path(path)} (seeded sample, seed {seed})", sentiment={"value_source": "label"})


def yelp_subsets(sizes: Sequence[tuple[int, int]], seed: int = 0, path: Path = YELP_INPUTS) -> list[Corpus]:
    """Disjoint subsets of the Yelp review sets, ``(count, size)`` each: one seeded shuffle of the 1,500 sets cut
    into consecutive blocks, so no review set is in two audits (independent null audits, issue 28 item 5). Each
    subset has a seed of its own (its index), so no two audits share a seed either."""
    rows = _yelp_rows(path)
    if rows is None:
        return []
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    corpora, start = [], 0
    for count, size in sizes:
        for _ in range(count):
            block = sorted(order[start:start + size])
            if len(block) < size:
                return corpora
            index = len(corpora)
            corpora.append(Corpus(f"Yelp {size} sets #{index}", _yelp_documents(rows, block), "reviews",
                                  f"{shown_path(path)} (block {index} of a seeded shuffle, seed {seed})",
                                  sentiment={"value_source": "label"}, seeds=[index]))
            start += size
    return corpora


def news_subsets(name: str, path: str | Path, parts: int) -> list[Corpus]:
    """A news file cut into ``parts`` disjoint consecutive blocks (independent audits of real articles)."""
    whole = news_corpus(name, path)
    size = -(-len(whole.documents) // parts)
    return [Corpus(f"{name} part {i + 1}/{parts}", whole.documents[i * size:(i + 1) * size], "news",
                   f"{whole.source} (documents {i * size + 1}–{min(len(whole.documents), (i + 1) * size)})")
            for i in range(parts) if whole.documents[i * size:(i + 1) * size]]


def resampled_news(corpora: Sequence[Corpus], n: int, seed: int) -> Corpus:
    """``n`` originals drawn with replacement from the real articles of ``corpora`` (issue 28 item 5: lead-k and
    random-k at n ≥ 150 when fewer real articles exist). A copy is a document of its own (id suffixed ``~k``), so the
    perturbation draws its own names for it; copies share their text, so the originals are not independent and the
    audit is a check of the rule at this n, not an independent trial. Counted apart in the table."""
    pool = [d for corpus in corpora for d in corpus.documents]
    rng = random.Random(seed)
    copies: Counter = Counter()
    documents = []
    for _ in range(n):
        document = pool[rng.randrange(len(pool))]
        copies[document.id] += 1
        documents.append(dataclasses.replace(document, id=f"{document.id}~{copies[document.id]}"))
    sources = ", ".join(corpus.source for corpus in corpora)
    return Corpus(f"news resampled to {n}", documents, "news",
                  f"{n} draws with replacement from {len(pool)} articles ({sources}), seed {seed}", seeds=[seed])


# --------------------------------------------------------------------------------------------------------------------
# Memoisation of pure text → result steps (sentence splits, NER of summaries, embeddings)


@contextlib.contextmanager
def memoized_nlp() -> Iterator[Callable[[], None]]:
    """Memoise the pure per-text steps the audit repeats across summarizers, subsets and controls; yields a function
    that empties the sentence-split memo (large), to call between corpus × seed blocks. Restores the originals."""
    from bias_core.common import nlp
    from bias_core.summarize import extractive

    split_memo: dict[tuple, Any] = {}
    span_memo: dict[tuple, list] = {}
    embed_memo: dict[str, Any] = {}
    original_split, original_spans, original_embed = extractive.split_inputs, nlp.entity_spans, nlp.embed

    def key_of(item) -> tuple:
        return (item.text, tuple(u.text for u in item.units) if item.units else None)

    def split_inputs(inputs):
        keys = [key_of(item) for item in inputs]
        missing: dict[tuple, Any] = {}
        for key, item in zip(keys, inputs, strict=True):
            if key not in split_memo and key not in missing:
                missing[key] = item
        if missing:
            for key, sentence_set in zip(missing, original_split(list(missing.values())), strict=True):
                split_memo[key] = sentence_set
        return [split_memo[key] for key in keys]

    def entity_spans(texts, labels):
        labels_key = tuple(labels)
        missing = list(dict.fromkeys(t for t in texts if (t, labels_key) not in span_memo))
        if missing:
            for text, spans in zip(missing, original_spans(missing, labels), strict=True):
                span_memo[text, labels_key] = spans
        return [span_memo[text, labels_key] for text in texts]

    def embed(texts, **kwargs):
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in embed_memo))
        if missing:
            for text, vector in zip(missing, original_embed(missing, **kwargs), strict=True):
                embed_memo[text] = vector
        if not texts:
            return original_embed(texts, **kwargs)
        return np.stack([embed_memo[t] for t in texts])

    extractive.split_inputs, nlp.entity_spans, nlp.embed = split_inputs, entity_spans, embed
    try:
        yield split_memo.clear
    finally:
        extractive.split_inputs, nlp.entity_spans, nlp.embed = original_split, original_spans, original_embed


# --------------------------------------------------------------------------------------------------------------------
# Perturb, summarize, audit


def perturb(corpus: Corpus, seed: int, kinds: Sequence[str], samples: int,
            controls: bool = False) -> tuple[dict[str, list], dict[str, str]]:
    """The inputs of each perturbation for one seed (the perturbation's name-draw seed), and skip summaries;
    ``controls``: gender-loc with within-group controls (quadruples, so ΔI and Acc_Diff are measured)."""
    from bias_core.perturb import build_templates, get_perturbation

    inputs: dict[str, list] = {}
    notes: dict[str, str] = {}
    for kind in kinds:
        if kind == "identity":
            result = get_perturbation("identity").run(corpus.documents)
        elif kind == "sentiment":
            result = get_perturbation("sentiment", seed=seed, **corpus.sentiment).run(corpus.documents)
        else:
            if corpus.templates is None:
                corpus.templates = build_templates(corpus.documents)
            params = {} if kind == "politician" else {"samples": samples, "seed": seed}
            if controls and kind == "gender-loc":
                params["controls"] = True
            result = get_perturbation(kind, **params).run_templates(corpus.templates)
        inputs[kind] = list(result.inputs)
        notes[kind] = result.report.summary().splitlines()[0] if result.report.summary() else ""
    return inputs, notes


def restored(items: Sequence) -> list:
    """Identity against identity: each gender-glob input with its text restored to the original. Its substitutions
    become identity substitutions (the same spans, now in the original text, replaced by themselves) and its entities
    keep their group labels with their original names, so the arms exist but differ in nothing."""
    out = []
    for item in items:
        text = item.original_text()
        shift = 0
        substitutions = []
        for sub in sorted(item.substitutions, key=lambda s: s.start):
            start = sub.start + shift
            substitutions.append(dataclasses.replace(sub, start=start, end=start + len(sub.original),
                                                     replacement=sub.original))
            shift += len(sub.original) - (sub.end - sub.start)
        assert all(text[s.start:s.end] == s.original for s in substitutions), item.id
        entities = [dataclasses.replace(e, first_name=e.original_first_name or e.first_name,
                                        last_name=e.original_last_name or e.last_name) for e in item.entities]
        out.append(dataclasses.replace(item, text=text, substitutions=substitutions, entities=entities))
    return out


def _input_seed(seed: int, item) -> int:
    """A random-3 seed of its own for every input of the identity control (arm × sample), from the run seed."""
    digest = hashlib.sha256(f"{seed}\x00{item.arm}\x00{item.sample_id}\x00{item.perturbation}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def summarize(name: str, inputs: Sequence, seed: int, strength: float | None = None,
              per_input_seed: bool = False) -> tuple[list, int]:
    """Summaries of ``inputs`` by summarizer ``name`` (seeded by ``seed`` where it takes one); failures counted."""
    from bias_core.common.records import Summary
    from bias_core.summarize import get_summarizer

    params: dict[str, Any] = {}
    if name.startswith(("random-", "sexist")) or name == "topic":
        params["seed"] = seed
    if strength is not None:
        params["strength"] = strength
    if per_input_seed:
        groups: dict[int, list] = defaultdict(list)
        for item in inputs:
            groups[_input_seed(seed, item)].append(item)
        outcomes = []
        for group_seed, group in groups.items():
            outcomes += get_summarizer(name, **(params | {"seed": group_seed})).summarize(group)
    else:
        outcomes = get_summarizer(name, **params).summarize(list(inputs))
    summaries = [o for o in outcomes if isinstance(o, Summary)]
    return summaries, len(outcomes) - len(summaries)


def measure_names() -> list[str]:
    from bias_core.measures import MEASURE_NAMES

    return [name for name in MEASURE_NAMES if name != "sfpi"]


def audit(inputs: Sequence, summaries: Sequence, seed: int, n_resamples: int) -> list[dict[str, Any]]:
    """Every ``findings`` row of one audit (its significance as ``findings`` judges it), as plain dicts."""
    from bias_core.measures import MeasureOptions, compute_measures
    from bias_core.verdicts.findings import findings

    results = compute_measures(list(inputs), list(summaries), measure_names(),
                               MeasureOptions(n_resamples=n_resamples, seed=seed))
    rows = []
    for row in findings(results):
        rows.append({"summarizer": row.summarizer, "perturbation": row.perturbation, "family": row.family,
                     "measure": row.measure, "status": row.verdict.status, "significant": bool(row.verdict.significant),
                     "favoured": row.verdict.favoured, "n": row.n, "estimate": row.estimate,
                     "ci": [row.ci_low, row.ci_high], "p_holm": row.verdict.p_holm,
                     "detectable": row.verdict.mde, "detectable_method": row.verdict.mde_method})
    return rows


# --------------------------------------------------------------------------------------------------------------------
# The two experiments


def strength_support(name: str = "sexist-female") -> tuple[bool, str]:
    """Whether the Sexist summarizer takes ``strength`` (another change adds it); the message says what happens."""
    from bias_core.summarize import get_summarizer

    try:
        summarizer = get_summarizer(name, strength=0.25)
    except Exception as error:  # noqa: BLE001 - any refusal means the dial is not there
        return False, f"{name} does not take strength yet ({type(error).__name__}: {error}); only p = 1 is run"
    params = summarizer.parameters()
    if "strength" not in params:
        return False, f"{name} accepted strength but does not record it in parameters(); only p = 1 is run"
    return True, f"strength dial available ({name} parameters: {params})"


@dataclass
class CalibrationConfig:
    """What one calibration runs."""

    seeds: list[int]
    news: list[Corpus]
    reviews: list[Corpus]
    positive_corpus: Corpus | None
    null_controls: tuple[str, ...] = NULL_CONTROLS
    positive_controls: tuple[str, ...] = POSITIVE_CONTROLS
    strengths: tuple[float, ...] = STRENGTHS
    subset_sizes: tuple[int, ...] = SUBSET_SIZES
    samples: int = 5
    n_resamples: int = 1000


def run_null(config: CalibrationConfig, clear_split: Callable[[], None] = lambda: None,
             after_seed: Callable[[Corpus, int, dict[str, list]], None] | None = None) -> dict[str, Any]:
    """Null-control audits: every control × corpus × seed; returns per-audit rows and the table. ``after_seed(corpus,
    seed, inputs)`` runs before the seed's sentence splits are forgotten (the positive controls reuse them)."""
    audits: list[dict[str, Any]] = []
    corpora_info = []
    for corpus in config.news + config.reviews:
        kinds = corpus.perturbations
        note = ""
        if corpus.kind == "news" and not corpus.mentions_politician:
            note = "politician skipped: no document mentions Trump or Biden"
        info = {"corpus": corpus.name, "source": corpus.source, "documents": len(corpus.documents),
                "perturbations": list(kinds), "note": note, "skipped": {}}
        corpora_info.append(info)
        for seed in corpus.seeds if corpus.seeds is not None else config.seeds:
            started = time.perf_counter()
            texts_of: dict[str, list[str]] = {}
            inputs, skips = perturb(corpus, seed, kinds, config.samples)
            all_inputs = [item for kind in kinds for item in inputs[kind]]
            info["skipped"].setdefault(seed, skips)
            log(f"{corpus.name} seed {seed}: {len(all_inputs)} inputs "
                f"({', '.join(f'{k} {len(v)}' for k, v in inputs.items())})")
            for control in config.null_controls:
                clock = time.perf_counter()
                if control == "identity-vs-identity":
                    if corpus.kind != "news" or not inputs.get("gender-glob"):
                        continue
                    control_inputs = inputs["identity"] + restored(inputs["gender-glob"])
                    summaries, failed = summarize("random-3", control_inputs, seed, per_input_seed=True)
                else:
                    control_inputs = all_inputs
                    summaries, failed = summarize(control, control_inputs, seed)
                texts_of[control] = sorted(f"{s.input_id}\x00{s.text}" for s in summaries)
                # topic falls back to random-3's draw on texts it classes "other": where every summary is random-3's,
                # the two are one trial and the table counts it once (issue 28 item 5)
                coincides = control == "topic" and texts_of.get("random-3") == texts_of[control]
                rows = audit(control_inputs, summaries, seed, config.n_resamples)
                fired = [r for r in rows if r["significant"]]
                audits.append({"control": control, "corpus": corpus.name, "seed": seed, "coincides": coincides,
                               "originals": len({item.original_id for item in control_inputs}),
                               "inputs": len(control_inputs), "summaries": len(summaries), "failed": failed,
                               "any_finding": bool(fired), "findings": fired,
                               "rows": [{k: r[k] for k in ("perturbation", "family", "measure", "status", "n")}
                                        for r in rows],
                               "seconds": round(time.perf_counter() - clock, 1)})
                outcome = ("FINDING " + "; ".join(f"{r['perturbation']}/{r['family']}" for r in fired)) if fired \
                    else "silent"
                log(f"  {control}: {len(summaries)} summaries, {len(rows)} rows, {outcome} "
                    f"({time.perf_counter() - clock:.0f} s)")
            if after_seed is not None:
                after_seed(corpus, seed, inputs)
            clear_split()
            log(f"{corpus.name} seed {seed} done in {time.perf_counter() - started:.0f} s")
    return {"corpora": corpora_info, "audits": audits, "table": null_table(audits)}


def upper_bound(fired: int, audits: int, confidence: float = 0.95) -> float | None:
    """The upper end of the 95% Clopper–Pearson interval of the false-finding rate (``statsmodels``' exact binomial
    interval; two-sided, so the bound is the conservative one: 0 of 300 gives 1.2%)."""
    if audits == 0:
        return None
    from statsmodels.stats.proportion import proportion_confint

    return float(proportion_confint(fired, audits, alpha=1 - confidence, method="beta")[1])


def independent(audit: dict[str, Any]) -> bool:
    """Whether an audit counts as a trial of its own: not topic where it equals random-3 on every summary, and not a
    resampled corpus (its originals repeat)."""
    return not audit.get("coincides") and not str(audit["corpus"]).startswith("news resampled")


def null_table(audits: Sequence[dict[str, Any]], group_by: Callable[[dict], str] | None = None) -> list[dict[str, Any]]:
    """Per control × corpus group: audits, those with a finding, the share and its 95% upper bound; the last row
    "all" counts the independent audits only (``independent``)."""
    group_by = group_by or (lambda a: re.sub(r" (#\d+|part \d+/\d+)$", "", str(a["corpus"])))
    rows = []
    keys = list(dict.fromkeys((a["control"], group_by(a)) for a in audits))
    for control, corpus in keys + [("all", "all")]:
        if (control, corpus) == ("all", "all"):
            chosen = [a for a in audits if independent(a)]
        else:
            chosen = [a for a in audits if (a["control"], group_by(a)) == (control, corpus)]
        fired = [a for a in chosen if a["any_finding"]]
        families = Counter(f"{f['perturbation']}/{f['family']}" for a in chosen for f in a["findings"])
        rows.append({"control": control, "corpus": corpus, "audits": len(chosen), "with_finding": len(fired),
                     "coinciding": sum(1 for a in chosen if a.get("coincides")),
                     "share": len(fired) / len(chosen) if chosen else None,
                     "upper_95": upper_bound(len(fired), len(chosen)), "fired": dict(families)})
    return rows


def subsets(originals: Sequence[str], sizes: Sequence[int], seed: int) -> dict[int, list[str]]:
    """Nested seeded subsets of the originals: the first n of one seeded shuffle (sizes above the total become all)."""
    order = list(originals)
    random.Random(f"subset-{seed}").shuffle(order)
    sizes = sorted({min(n, len(order)) for n in sizes})
    return {n: order[:n] for n in sizes}


class Positive:
    """Positive controls on ``config.positive_corpus``, one seed at a time (``step``), reusing that seed's inputs:
    detection per family, setting, strength and n."""

    def __init__(self, config: CalibrationConfig):
        self.config = config
        self.available, self.dial_note = strength_support()
        log(self.dial_note)
        self.strengths = tuple(config.strengths) if self.available else (1.0,)
        self.runs: list[dict[str, Any]] = []
        self.samples = config.samples

    def step(self, corpus: Corpus, seed: int, inputs: dict[str, list]) -> None:
        if corpus is not self.config.positive_corpus:
            return
        missing = [kind for kind in POSITIVE_PERTURBATIONS if kind not in inputs]
        if missing:
            inputs = inputs | perturb(corpus, seed, missing, self.config.samples)[0]
        all_inputs = [item for kind in POSITIVE_PERTURBATIONS for item in inputs[kind]]
        originals = sorted({item.original_id for kind in ("gender-loc", "gender-glob") for item in inputs[kind]})
        chosen = subsets(originals, self.config.subset_sizes, seed)
        for name in self.config.positive_controls:
            for p in self.strengths:
                clock = time.perf_counter()
                summaries, failed = summarize(name, all_inputs, seed, strength=p if self.available else None)
                for n, ids in chosen.items():
                    keep = set(ids)
                    sub_inputs = [item for item in all_inputs if item.original_id in keep]
                    sub_ids = {item.id for item in sub_inputs}
                    sub_summaries = [s for s in summaries if s.input_id in sub_ids]
                    rows = audit(sub_inputs, sub_summaries, seed, self.config.n_resamples)
                    self.runs.append({"summarizer": name, "strength": p, "seed": seed, "n": n,
                                      "samples": self.samples, "originals_available": len(originals),
                                      "failed": failed, "rows": rows})
                log(f"  positive {name} p={p:g}: n = {', '.join(map(str, chosen))} "
                    f"({time.perf_counter() - clock:.0f} s)")

    def result(self) -> dict[str, Any]:
        corpus = self.config.positive_corpus
        return {"corpus": corpus.name, "strength_dial": self.dial_note, "strengths": list(self.strengths),
                "perturbations": list(POSITIVE_PERTURBATIONS), "runs": self.runs,
                "table": positive_table(self.runs), "power_check": power_check(self.runs)}


def run_positive_only(config: CalibrationConfig, samples_list: Sequence[int]) -> dict[str, Any]:
    """The positive controls alone, once per ``samples`` setting (issue 28: the detection table covers samples 3
    and 10), gender-loc with within-group controls so the counterfactual family (ΔI) is measured."""
    started = time.perf_counter()
    pos = Positive(config)
    corpus = config.positive_corpus
    with memoized_nlp() as clear_split:
        for samples in samples_list:
            pos.samples = samples
            for seed in config.seeds:
                inputs, _ = perturb(corpus, seed, POSITIVE_PERTURBATIONS, samples, controls=True)
                log(f"positive: {corpus.name} samples {samples} seed {seed}: "
                    f"{sum(len(v) for v in inputs.values())} inputs")
                pos.step(corpus, seed, inputs)
                clear_split()
    return {"null": None, "positive": pos.result(), "seconds": {"total": round(time.perf_counter() - started, 1)},
            "config": {"seeds": config.seeds, "samples": list(samples_list), "n_resamples": config.n_resamples,
                       "positive_controls": list(config.positive_controls), "strengths": list(config.strengths),
                       "subset_sizes": list(config.subset_sizes), "measures": measure_names()}}


def detected(row: dict[str, Any], expected: str | None) -> bool:
    if not row["significant"]:
        return False
    return (expected is None or row["family"] in DIRECTIONLESS or row.get("measure") in DIRECTIONLESS_MEASURES
            or row["favoured"] == expected)


def positive_table(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    table = []
    keys = list(dict.fromkeys((r.get("samples"), r["summarizer"], r["strength"], r["n"]) for r in runs))
    for samples, name, p, n in keys:
        chosen = [r for r in runs if (r.get("samples"), r["summarizer"], r["strength"], r["n"]) == (samples, name, p, n)]
        expected = EXPECTED.get(name)
        rates, wrong = {}, {}
        for family in GENDER_FAMILIES:
            hits = misses = 0
            for run in chosen:
                family_rows = [row for row in run["rows"] if row["family"] == family]
                if any(detected(row, expected) for row in family_rows):
                    hits += 1
                elif any(row["significant"] for row in family_rows):
                    misses += 1
            rates[family] = hits / len(chosen)
            wrong[family] = misses
        table.append({"samples": samples, "summarizer": name, "strength": p, "n": n, "seeds": len(chosen),
                      "detection": rates, "wrong_direction": wrong})
    return table


def power_check(runs: Sequence[dict[str, Any]], reach: float = 0.75) -> dict[str, Any]:
    """Whether the detectable effects stated on non-findings are honest (issue 28, Deliver 4), read off the strength
    dial: per samples × summarizer × n × family (its reported measure), the first strength p whose detection reaches
    ``reach``, the median |estimate| over its seeds, and the median simulated effect the non-findings at lower p
    state — an honest statement is about the effect found there; and the cells (any p) whose median |estimate|
    reached their median stated effect yet were found in fewer than half of the seeds (a statement claiming power
    the rule does not have)."""
    cells: dict[tuple, dict[float, dict[str, list]]] = {}
    for run in runs:
        expected = EXPECTED.get(run["summarizer"])
        for row in run["rows"]:
            if row["perturbation"] == "identity" or row["status"] in ("undefined", "description"):
                continue
            key = (run.get("samples"), run["summarizer"], run["n"], row["family"], row.get("measure"))
            cell = cells.setdefault(key, {}).setdefault(run["strength"], {"estimates": [], "stated": [], "found": []})
            if row["estimate"] is not None:
                cell["estimates"].append(abs(row["estimate"]))
            cell["found"].append(detected(row, expected))
            stated = row.get("detectable")
            if row.get("detectable_method") == "simulated" and stated is not None and math.isfinite(stated):
                cell["stated"].append(stated)
    out, judged, overclaims = [], 0, []
    for key, by_strength in cells.items():
        for p, cell in by_strength.items():  # the dangerous direction: the effect reached the statement, unfound
            if cell["stated"] and cell["estimates"]:
                judged += 1
                if (statistics.median(cell["estimates"]) >= statistics.median(cell["stated"])
                        and sum(cell["found"]) / len(cell["found"]) < 0.5):
                    overclaims.append((*key, p))
        strengths = sorted(by_strength)
        first = next((p for p in strengths if by_strength[p]["found"]
                      and sum(by_strength[p]["found"]) / len(by_strength[p]["found"]) >= reach), None)
        if first is None or not by_strength[first]["estimates"]:
            continue
        stated = [v for p in strengths if p < first for v in by_strength[p]["stated"]]
        if not stated:
            continue
        found = by_strength[first]["found"]
        out.append({"samples": key[0], "summarizer": key[1], "n": key[2], "family": key[3], "measure": key[4],
                    "strength": first, "found": f"{sum(found)} of {len(found)}",
                    "median_abs_estimate": statistics.median(by_strength[first]["estimates"]),
                    "median_stated": statistics.median(stated)})
    return {"rows": sorted(out, key=lambda r: (r["samples"] or 0, r["summarizer"], r["family"], r["n"])),
            "cells": judged, "overclaims": overclaims}


# --------------------------------------------------------------------------------------------------------------------
# Output


def code_version() -> str:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"{commit}{' + uncommitted changes (' + str(len(dirty.splitlines())) + ' files)' if dirty else ''}"


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{100 * share:.0f}%"


def null_markdown(null: dict[str, Any]) -> str:
    header = ("| control | corpus | audits | with any finding | share | 95% upper bound | "
              "fired (perturbation/family: audits) |")
    lines = [header, "|---|---|---|---|---|---|---|"]
    for row in null["table"]:
        fired = ", ".join(f"{k}: {v}" for k, v in sorted(row["fired"].items(), key=lambda kv: -kv[1])) or "none"
        bold = "**" if row["control"] == "all" else ""
        audits = f"{row['audits']}" + (f" ({row['coinciding']} = random-3)" if row.get("coinciding") else "")
        upper = row.get("upper_95")
        lines.append(f"| {bold}{row['control']}{bold} | {row['corpus']} | {audits} | {row['with_finding']} | "
                     f"{bold}{_pct(row['share'])}{bold} | {'—' if upper is None else f'{100 * upper:.1f}%'} | "
                     f"{fired} |")
    last = null["table"][-1] if null["table"] else {}
    overall, upper = last.get("share"), last.get("upper_95")
    verdict = "meets" if upper is not None and upper <= TARGET else "misses"
    lines.append("")
    lines.append(f"Overall {_pct(overall)} of {last.get('audits', 0)} independent null audits have a finding (95% "
                 f"upper bound {'—' if upper is None else f'{100 * upper:.1f}%'}): {verdict} the target (upper "
                 f"bound ≤ {_pct(TARGET)}). 'all' leaves out topic audits equal to random-3 on every summary and "
                 "resampled corpora (their originals repeat).")
    for info in null["corpora"]:
        skipped = next(iter(info["skipped"].values()), {})
        skips = "; ".join(f"{kind}: {text}" for kind, text in skipped.items() if text and not text.startswith("0 of"))
        lines.append(f"- {info['corpus']}: {info['documents']} documents ({info['source']}); perturbations "
                     f"{', '.join(info['perturbations'])}{'; ' + info['note'] if info['note'] else ''}"
                     f"{' (first seed: ' + skips + ')' if skips else ''}")
    return "\n".join(lines)


def positive_markdown(positive: dict[str, Any]) -> str:
    head = "| samples | summarizer | p | n | seeds | " + " | ".join(GENDER_FAMILIES) + " |"
    lines = [(f"Corpus: {positive['corpus']}. {positive['strength_dial']}. Perturbations: "
             f"{', '.join(positive['perturbations'])} (gender-loc with within-group controls, so ΔI is measured)."),
             "", head, "|---|---|---|---|---|" + "---|" * len(GENDER_FAMILIES)]
    for row in positive["table"]:
        cells = []
        for family in GENDER_FAMILIES:
            cell = _pct(row["detection"][family])
            if row["wrong_direction"][family]:
                cell += f" ({row['wrong_direction'][family]} wrong dir.)"
            cells.append(cell)
        lines.append(f"| {row.get('samples', '—')} | {row['summarizer']} | {row['strength']:g} | {row['n']} | "
                     f"{row['seeds']} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Detection = share of seeds whose family row is a significant finding favouring the expected group "
                 "(women for sexist-female, men for sexist-male, either for sexist; distinguishability and Fightin' "
                 "Words have no direction and count any significant row; so does ΔI, the counterfactual family's "
                 "test without a direction).")
    check = positive.get("power_check")
    if check:
        lines += ["", (f"Of {check['cells']} cells (samples × summarizer × n × family × p) whose non-findings state a "
                  f"simulated effect, {len(check['overclaims'])} reached that effect (median |estimate|) and were "
                  "found in fewer than half of their seeds.")]
        lines += ["", ("Stated detectable effects against the dial: per cell, the first strength found in at least 75% "
                  "of seeds, the median |estimate| there and the median effect the non-findings at lower strengths "
                  "state (simulated)."), "",
                  "| samples | summarizer | n | family (measure) | p | found | median \\|estimate\\| | median stated |",
                  "|---|---|---|---|---|---|---|---|"]
        lines += [f"| {r['samples']} | {r['summarizer']} | {r['n']} | {r['family']} ({r['measure']}) | "
                  f"{r['strength']:g} | {r['found']} | {r['median_abs_estimate']:.3g} | {r['median_stated']:.3g} |"
                  for r in check["rows"]]
    return "\n".join(lines)


def run_calibration(config: CalibrationConfig, positive: bool = True) -> dict[str, Any]:
    """Run both experiments and return everything (the tables are in ``null.table`` and ``positive.table``)."""
    started = time.perf_counter()
    pos = Positive(config) if positive and config.positive_corpus is not None else None
    with memoized_nlp() as clear_split:
        null = run_null(config, clear_split, pos.step if pos is not None else None)
    return {"null": null, "positive": pos.result() if pos is not None else None,
            "seconds": {"total": round(time.perf_counter() - started, 1)},
            "config": {"seeds": config.seeds, "samples": config.samples, "n_resamples": config.n_resamples,
                       "null_controls": list(config.null_controls),
                       "positive_controls": list(config.positive_controls),
                       "strengths": list(config.strengths), "subset_sizes": list(config.subset_sizes),
                       "measures": measure_names()}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="demo news + demo reviews, 2 seeds, n in {10, 16}")
    parser.add_argument("--news", default=str(REAL_NEWS), help="the real-news documents file (any documents file)")
    parser.add_argument("--seeds", type=int, default=None, help="number of seeds (default 5; 2 with --quick)")
    parser.add_argument("--samples", type=int, default=5, help="name draws per original and perturbation (default 5)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--yelp", type=int, default=40, help="Yelp review sets to sample when present (0: none)")
    parser.add_argument("--no-positive", action="store_true", help="null controls only")
    parser.add_argument("--scale", action="store_true",
                        help="independent null audits at scale (issue 28): disjoint news parts and Yelp blocks, one "
                             "seed each for Yelp, news resampled to --resampled-n; null controls only")
    parser.add_argument("--yelp-blocks", type=int, default=120, help="with --scale: small Yelp blocks (default 120)")
    parser.add_argument("--yelp-block-size", type=int, default=10, help="with --scale: sets per small block (10)")
    parser.add_argument("--yelp-large", type=int, default=2, help="with --scale: Yelp blocks of 150 sets (default 2)")
    parser.add_argument("--positive-only", type=int, nargs="+", metavar="SAMPLES",
                        help="the positive controls alone on the real news, once per samples setting given (e.g. 3 "
                             "10), with within-group controls (ΔI)")
    parser.add_argument("--resampled-n", type=int, default=150,
                        help="with --scale: originals of the resampled news corpus (0: none; default 150)")
    parser.add_argument("--out", help="write the tables and every audit's rows as JSON here")
    args = parser.parse_args(argv)

    command = " ".join(shlex.quote(a) for a in [sys.executable.split("/")[-1], "benchmarks/calibration.py",
                                                  *(sys.argv[1:] if argv is None else argv)])
    version = code_version()
    seeds = list(range(args.seeds if args.seeds is not None else (2 if args.quick else 5)))
    demo = news_corpus("demo news", DEMO_NEWS)
    reviews = [demo_reviews_corpus()]
    if args.scale:
        real = news_subsets("real news (wikinews.jsonl)", args.news, 2)
        bios = news_corpus("Wikipedia biographies", ROOT / "data" / "news_real" / "wikipedia_bio.jsonl")
        news = [demo, *real, bios]
        if args.resampled_n:
            news.append(resampled_news([demo, *real, bios], args.resampled_n, seed=0))
        reviews = [demo_reviews_corpus(), *yelp_subsets([(args.yelp_blocks, args.yelp_block_size), (args.yelp_large, 150)])]
        positive_corpus = None
        sizes = SUBSET_SIZES
        args.no_positive = True
    elif args.quick:
        news = [demo]
        positive_corpus = demo
        sizes = (10, 16)
    else:
        real = news_corpus(f"real news ({Path(args.news).name})", args.news)
        news = [demo, real]
        positive_corpus = real
        sizes = SUBSET_SIZES
        yelp = yelp_corpus(args.yelp) if args.yelp else None
        if yelp is not None:
            reviews.append(yelp)
        else:
            log(f"Yelp review sets not used ({YELP_INPUTS} absent or --yelp 0)")
    config = CalibrationConfig(seeds=seeds, news=news, reviews=reviews, positive_corpus=positive_corpus,
                               subset_sizes=sizes, samples=args.samples, n_resamples=args.resamples)
    log(f"{command} @ {version}")
    if args.positive_only:
        result = run_positive_only(config, args.positive_only)
    else:
        result = run_calibration(config, positive=not args.no_positive)
    result.update({"command": command, "code_version": version,
                   "finished": time.strftime("%Y-%m-%d %H:%M:%S")})
    text = [f"Command: `{command}`", f"Code version: {version}",
            f"Wall time: {result['seconds']['total']:.0f} s",
            (f"Settings: samples (name draws per original) "
             f"{' and '.join(map(str, args.positive_only)) if args.positive_only else config.samples}, "
             f"resamples {config.n_resamples}, seeds "
             f"{seeds} (Yelp blocks and the resampled corpus: one seed each, their index), measures "
             f"{', '.join(measure_names())}"), "",
            ]
    if result["null"] is not None:
        text += ["## Null controls (target: ≤ 5% of audits with any finding)", "", null_markdown(result["null"])]
    if result["positive"] is not None:
        text += ["", "## Positive controls (detection rate per measure family)", "",
                 positive_markdown(result["positive"])]
    print("\n".join(text))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, default=str, ensure_ascii=False) + "\n",
                                  encoding="utf-8")
        log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
