"""Print the effect of each FairSumm rule difference on the same inputs (METHODS §4.7; docs/fidelity.md, issue 20).

Rows: the observed BUR and UER (%, τ = 0.8, no permutation test) under summbias's spaCy matching and the FairSumm
authors' NLTK pipeline, with one rule at a time switched: the token pipeline, ``≤`` against ``<``, empty value slots
kept against dropped. Inputs: the authors' released Yelp GPT-4 and Alpaca summaries (their Table 10; needs
``../shared/reference``, whose NLTK data is converted on first use) and, for the kept empty slot (which cannot
arise with Yelp's three values: two shares always sum to exactly 1.0), the demo reviews split by star rating (five
values) with lead-3 and random-3. ``--embedding`` adds the embedding matching at the paper's temperature (0.1) and
the released code's (2).

    .venv/bin/python benchmarks/fairsumm_rules.py [--reference ../shared/reference] [--embedding]
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import numpy as np

from bias_core.documents.corpus import load_documents
from bias_core.measures import fairsumm_ngram
from bias_core.measures.common import pair_summaries
from bias_core.measures.perspective_scores import permuted_scores, sample_units
from bias_core.perturb import get_perturbation
from bias_core.summarize import get_summarizer

REPO = Path(__file__).resolve().parents[1]
FAIRSUMM = fairsumm_ngram.FAIRSUMM_NGRAM


def observed(samples, *, temperature: float = 0.1, **rules) -> tuple[float, float, int]:
    """BUR and UER in % over the samples, with ``rules`` (keep_empty_slots, inclusive) replacing the samples' own."""
    bur, uer = [], []
    for sample in samples:
        if sample is None:
            continue
        scores = permuted_scores(dataclasses.replace(sample, **rules), sample.labels[None, :],
                                 temperature=temperature)
        bur.append(scores.bur[0])
        uer.append(scores.uer[0])
    return 100 * float(np.mean(bur)), 100 * float(np.mean(uer)), len(bur)


def yelp_rows(reference: Path, embedding: bool) -> list[tuple[str, str, tuple]]:
    import gzip
    import json

    from bias_core.common.records import Input, Summary
    from bias_core.measures.nltk_reference import modern_nltk_data

    if fairsumm_ngram.missing_nltk_data():
        fairsumm_ngram.prepend_nltk_path(modern_nltk_data(reference / "nltk_data"))
    folder = reference / "fairsumm"
    read = lambda name: [json.loads(line) for line in gzip.open(folder / name, "rt", encoding="utf-8")]  # noqa: E731
    inputs = [Input.from_dict(record) for record in read(fairsumm_ngram.TABLE10_INPUTS)]
    rows = []
    for model, name in fairsumm_ngram.TABLE10_SUMMARIES.items():
        pairs = pair_summaries(inputs, [Summary.from_dict(record) for record in read(name)])
        spacy, _ = sample_units(pairs, matching="ngram", null="shuffle")
        authors, _ = sample_units(pairs, matching=FAIRSUMM, null="shuffle")
        rows += [
            (model, "ngram (spaCy lemmas, <, values with tokens)", observed(spacy)),
            (model, "ngram with ≤", observed(spacy, inclusive=True)),
            (model, "fairsumm-ngram with <", observed(authors, inclusive=False)),
            (model, "fairsumm-ngram with empty slots dropped", observed(authors, keep_empty_slots=False)),
            (model, "fairsumm-ngram (the authors' code)", observed(authors)),
        ]
        if embedding:
            vectors, _ = sample_units(pairs, matching="embedding", null="shuffle")
            rows += [(model, f"embedding (MiniLM), T = {t}", observed(vectors, temperature=t)) for t in (0.1, 2.0)]
    return rows


def demo_rows() -> list[tuple[str, str, tuple]]:
    documents = load_documents(REPO / "data" / "demo" / "reviews.jsonl")
    inputs = get_perturbation("sentiment", value_source="stars", samples=10).run(documents).inputs
    rows = []
    for summarizer in ("lead-3", "random-3"):
        pairs = pair_summaries(inputs, get_summarizer(summarizer).summarize(inputs))
        authors, _ = sample_units(pairs, matching=FAIRSUMM, null="shuffle")
        spacy, _ = sample_units(pairs, matching="ngram", null="shuffle")
        rows += [
            (f"demo stars, {summarizer}", "ngram (spaCy lemmas, <, values with tokens)", observed(spacy)),
            (f"demo stars, {summarizer}", "fairsumm-ngram with empty slots dropped",
             observed(authors, keep_empty_slots=False)),
            (f"demo stars, {summarizer}", "fairsumm-ngram (the authors' code)", observed(authors)),
        ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default=str(REPO / ".." / "shared" / "reference"))
    parser.add_argument("--embedding", action="store_true", help="add the embedding matching at T = 0.1 and 2")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = yelp_rows(Path(args.reference), args.embedding) + demo_rows()
    print("| inputs | matching and rules | BUR % | UER % | samples |")
    print("|---|---|---:|---:|---:|")
    for inputs, label, (bur, uer, n) in rows:
        print(f"| {inputs} | {label} | {bur:.2f} | {uer:.2f} | {n} |")
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
