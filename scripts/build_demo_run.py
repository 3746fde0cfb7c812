"""Build the precomputed demo run shipped in data/demo/demo_run.json.gz, so the app shows results at once.

Run: .venv/bin/python scripts/build_demo_run.py   (SmolLM2 dominates: about 3 s per new summary on 2 idle cores)
     .venv/bin/python scripts/build_demo_run.py --remeasure   (recompute only the measures of the shipped bundle)

The run is an ordinary audit of the demo corpus; the bundle is `bias_core.views.export.run_bundle` of it. The corpus is
real news (issue 29): the Wikinews articles of at most ``MAX_WORDS`` words, all 42 today (CC BY 2.5, data/news_real; picked by
``demo_wikinews``), sized from the power table (issue 19) so that the deliberately biased `sexist` baseline is caught,
with `topic` and `lead-3` as null controls, plus the three demo review sets for the sentiment split (no openly licensed
review set is shipped). The invented articles of data/demo/news.jsonl are a test corpus, not part of the demo run.

Every counterfactual the demo shows must read as one consistent world (issue 29, Deliver 9), and the rules do not yet
manage that on every real article (issue 27: about a third of arm texts on unseen text hold a contradiction). So the
build perturbs the candidates once, judges every arm text against GUM's hand-made coreference gold
(``benchmarks/coherence_gold.py``; every Wikinews article is in it) and leaves out each article with any incoherent arm
text, printing which and why. The demo is thus a curated showcase; the rules' error rates are the benchmark's, in
benchmarks/README.md. SmolLM2 summaries already in the shipped bundle are put into the
build's summary cache first (same summarizer, settings and input text give the same key), so a rebuild only
generates what is new.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from bias_core.common.records import Input, Summary
from bias_core.common.wordlists import FAMILY_WORDS, SPORT_WORDS
from bias_core.documents.corpus import load_documents
from bias_core.documents.record_files import json_safe
from bias_core.measures import MeasureOptions, compute_measures
from bias_core.reference.demo import DEMO_NEWS, DEMO_REVIEWS, DEMO_RUN, write_demo_findings
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.pipeline import run_audit
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache, get_summarizer
from bias_core.summarize.cache import cache_key
from bias_core.views.export import run_bundle

WIKINEWS = DEMO_NEWS.parent.parent / "news_real" / "wikinews.jsonl"
SMOLLM2 = StageSpec("smollm2", {"max_new_tokens": 80})
CONFIG = AuditConfig(
    corpus=CorpusSpec("data/news_real/wikinews.jsonl (Wikinews, CC BY 2.5) + data/demo/reviews.jsonl"),
    summarizers=[StageSpec("lead-3"), StageSpec("topic"), StageSpec("textrank"), StageSpec("sexist"), SMOLLM2],
    perturbations=[StageSpec("identity"), StageSpec("gender-loc", {"samples": 2}),
                   StageSpec("gender-glob", {"samples": 5}), StageSpec("race", {"samples": 1}),
                   StageSpec("politician"),
                   StageSpec("sentiment", {"value_source": "stars", "samples": 2})],
    seed=0, bootstrap=1000, name="demo: Wikinews articles and reviews (precomputed)",
)
# Articles left out after reading the demo's counterfactuals by hand, where the gold judge missed a contradiction (each
# with what a reader saw). A held-out article of issue 27's gold stays out: the rules are not tuned on it.
READ_AND_LEFT_OUT = {
    "wikinews-stardust": "gender-glob s0 female: 'Frances Gruen and his colleagues' (a swapped person's pronoun left)",
    # A tuning article: the rule for a possessive before its person ("Discussing his concern …, X said") is issue 27's.
    "wikinews-asylum": "gender-loc s1 a: 'Discussing her concern …, Malaysia's Prime Minister, Kevin Razak said'",
}
N_WIKINEWS = 42
MAX_WORDS = 1500


def demo_wikinews(path: Path = WIKINEWS, count: int = N_WIKINEWS) -> list:
    """The Wikinews articles of the demo: sport and family stories first (where the `sexist` baseline acts and the
    `topic` baseline changes length), then others, each at most ``MAX_WORDS`` words, in file order."""
    documents = [d for d in load_documents(path) if len(d.text.split()) <= MAX_WORDS]

    def topical(document) -> bool:
        words = re.findall(r"\w+", document.text.lower())
        sport = sum(words.count(w) for w in SPORT_WORDS)
        family = sum(words.count(w) for w in FAMILY_WORDS)
        return sport != family

    ordered = [d for d in documents if topical(d)] + [d for d in documents if not topical(d)]
    return ordered[:count]


def coherent_only(documents: list) -> list:
    """``documents`` without the articles that have an arm text the GUM gold judges incoherent (module docstring);
    articles the gold does not cover are kept."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from coherence_gold import Judge, load

    from bias_core.runs.pipeline import build_inputs

    texts, golds = {}, {}
    for split in ("tune", "heldout"):
        split_documents, split_golds = load(split)
        texts.update({d.id: d.text or "" for d in split_documents})
        golds.update(split_golds)
    judges = {doc_id: Judge(texts[doc_id], gold) for doc_id, gold in golds.items() if doc_id in texts}
    from dataclasses import replace

    news_only = replace(CONFIG, perturbations=[p for p in CONFIG.perturbations if p.name != "sentiment"])
    inputs, _ = build_inputs(documents, news_only)
    dropped: dict[str, str] = {}
    for item in inputs:
        if item.arm is None or item.original_id not in judges or item.original_id in dropped:
            continue
        lines, _, _ = judges[item.original_id].problems(item)
        if lines:
            dropped[item.original_id] = f"{item.id}: {lines[0]}"
    dropped.update({doc_id: f"{doc_id}: read by hand: {why}" for doc_id, why in READ_AND_LEFT_OUT.items()})
    for reason in dropped.values():
        print(f"left out (incoherent counterfactual): {reason}", file=sys.stderr)
    return [d for d in documents if d.id not in dropped]


def seed_cache(cache: SummaryCache, bundle_path: Path = DEMO_RUN) -> int:
    """Put the shipped bundle's SmolLM2 summaries into ``cache`` under the keys this build asks for."""
    if not bundle_path.is_file():
        return 0
    with gzip.open(bundle_path, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    summarizer = get_summarizer(SMOLLM2.name, **SMOLLM2.params)
    inputs = {item["id"]: Input.from_dict(item) for item in bundle["inputs"]}
    rows = [Summary.from_dict(s) for s in bundle["summaries"] if s["summarizer"] == summarizer.name]
    cache.put_many((cache_key(summarizer, inputs[s.input_id]), s) for s in rows if s.input_id in inputs)
    return len(rows)


def remeasure() -> None:
    """Recompute the shipped bundle's measures with the current code (inputs and summaries unchanged)."""
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    inputs = [Input.from_dict(i) for i in bundle["inputs"]]
    summaries = [Summary.from_dict(s) for s in bundle["summaries"]]
    results = compute_measures(inputs, summaries, options=MeasureOptions(n_resamples=CONFIG.bootstrap,
                                                                         seed=CONFIG.seed))
    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "runs.sqlite")
        run_id = store.import_run(bundle)
        store.replace_measures(run_id, results)
        write_bundle(json_safe(run_bundle(store, run_id)))
        store.close()


def trimmed(bundle: dict) -> dict:
    """The bundle without the per-sentence lists of summaries of perturbed inputs: the lexical-bias measure reads
    them only on the unchanged originals (identity) when a run has them, and they are two thirds of the compressed
    bundle, which must stay under 1 MB (issue 19). Summaries of identity inputs keep theirs."""
    identity = {item["id"] for item in bundle["inputs"] if item.get("perturbation") == "identity"}
    for summary in bundle["summaries"]:
        if summary["input_id"] not in identity:
            summary.pop("sentences", None)
            summary.pop("sentence_scores", None)
    return bundle


def write_bundle(bundle: dict) -> None:
    bundle = trimmed(bundle)
    # mtime=0: the same run gives the same bytes
    with open(DEMO_RUN, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as stream:
        stream.write(json.dumps(bundle, ensure_ascii=False).encode("utf-8"))
    print(f"wrote {DEMO_RUN} ({DEMO_RUN.stat().st_size / 1e6:.2f} MB): {len(bundle['inputs'])} inputs, "
          f"{len(bundle['summaries'])} summaries, {len(bundle['measures'])} results", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remeasure", action="store_true", help="recompute only the measures of the shipped bundle")
    parser.add_argument("--cache", type=Path, help="keep the build's summary cache in this file (reused by the next "
                                                   "build) instead of a temporary one")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.remeasure:
        remeasure()
    else:
        documents = coherent_only(demo_wikinews()) + load_documents(DEMO_REVIEWS)
        with tempfile.TemporaryDirectory() as folder:
            cache = SummaryCache(args.cache or Path(folder) / "summaries.sqlite")
            print(f"{seed_cache(cache)} SmolLM2 summaries of the shipped bundle put into the build's cache",
                  file=sys.stderr)
            store = RunStore(Path(folder) / "runs.sqlite")

            def progress(stage: str, done: int, total: int) -> None:
                print(f"\r{stage} {done}/{total} ({time.perf_counter() - started:.0f} s)", end="", file=sys.stderr)

            run_id = run_audit(CONFIG, store=store, cache=cache, documents=documents, on_progress=progress)
            print(file=sys.stderr)
            write_bundle(json_safe(run_bundle(store, run_id)))
            store.close()
            cache.close()
    print(f"done in {time.perf_counter() - started:.0f} s; wrote the demo run's {write_demo_findings()} findings "
          "beside it", file=sys.stderr)


if __name__ == "__main__":
    main()
