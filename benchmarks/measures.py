"""Benchmark the measures on a synthetic paper-scale corpus and print seconds per measure.

Steen & Markert's scale: 683 originals × 20 inputs = 13,660 summaries (C_loc: 10 pairs per original; C_glob: 10 + 10).
Synthetic records are built directly in the INTERFACES.md format (no summarizer runs), so the figures are the cost of
the measures themselves, each with 1,000 bootstrap resamples. NER alignment (spaCy) and dense embeddings
(all-MiniLM-L6-v2) are timed separately: they are model passes, not count-based work.

    .venv/bin/python benchmarks/measures.py [--originals 683] [--resamples 1000] [--skip-dense]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from bias_core.common import nlp
from bias_core.common.records import Entity, Input, Summary, Unit
from bias_core.measures import quadruples
from bias_core.measures.common import Pair
from bias_core.measures.distinguishability import distinguishability
from bias_core.measures.fightin_words import fightin_words
from bias_core.measures.lexical_bias import LabelledDocument, mbic_result
from bias_core.measures.perspective import perspective_fairness
from bias_core.measures.politician import SummaryPair, politician_features, summary_similarity
from bias_core.measures.steen_markert import (
    align_pairs,
    entity_hallucination,
    entity_inclusion,
    word_list_inclusion,
)
from bias_core.perturb.names import top_first_names

WORDS = ["the", "council", "said", "on", "monday", "that", "the", "plan", "would", "cost", "more", "than", "expected", "and", "that", "the", "vote", "was", "delayed", "after", "a", "long", "debate", "about", "schools", "roads", "taxes", "budget", "league", "season", "family", "children", "team", "game", "police", "court", "judge", "hospital", "report", "market", "shares", "company", "quarter", "profit"]
LAST_NAMES = ("Moore", "Smith", "Garcia", "Okafor", "Whitaker", "Delaney", "Kessler", "Norris", "Alvarez", "Baker")


def sentence(rng: np.random.Generator, name: str | None = None, pronoun: str | None = None) -> str:
    words = list(rng.choice(WORDS, size=int(rng.integers(8, 16))))
    if pronoun:
        words.insert(int(rng.integers(0, len(words))), pronoun)
    if name:
        words.insert(0, name)
    return " ".join(words).capitalize() + "."


def build_corpus(n_originals: int, rng: np.random.Generator, perturbation: str) -> list[Pair]:
    """Return (input, summary) pairs: 20 inputs per original, 4 entities each (C_loc pairs or C_glob arms)."""
    female, male = top_first_names("female", 50), top_first_names("male", 50)
    pairs = []
    for original in range(n_originals):
        last = rng.choice(LAST_NAMES, size=4, replace=False)
        for sample in range(10):
            for arm in ("a", "b") if perturbation == "gender-loc" else ("female", "male"):
                if perturbation == "gender-loc":
                    groups = ["female", "male", "female", "male"] if arm == "a" else ["male", "female", "male",
                                                                                      "female"]
                else:
                    groups = [arm] * 4
                firsts = [str(rng.choice(female if g == "female" else male)) for g in groups]
                entities = [Entity(f"e{i}", g, f, str(ln)) for i, (g, f, ln) in enumerate(zip(groups, firsts, last))]
                body = [sentence(rng, f"{f} {ln}", "she" if g == "female" else "he")
                        for f, ln, g in zip(firsts, last, groups)]
                body += [sentence(rng) for _ in range(16)]
                text = " ".join(body)
                chosen = rng.choice(len(body), size=3, replace=False)
                summary = " ".join(body[i] for i in sorted(chosen))
                if rng.random() < 0.2:
                    summary += f" {rng.choice(male + female)} Quux said so."
                item = Input(id=f"o{original}/{perturbation}/s{sample}/{arm}", original_id=f"o{original}",
                             sample_id=sample, perturbation=perturbation, arm=arm, text=text, entities=entities,
                             role=None)
                pairs.append(Pair(item, Summary(item.id, "synthetic", summary)))
    return pairs


def timed(label: str, function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    seconds = time.perf_counter() - start
    print(f"{label:<48s} {seconds:8.2f} s")
    return result, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--originals", type=int, default=683)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--skip-dense", action="store_true", help="skip the dense embeddings (slowest step)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    common = {"n_resamples": args.resamples, "seed": 0}
    print(f"cores available: {os.cpu_count()}; originals: {args.originals}; resamples: {args.resamples}")

    loc = build_corpus(args.originals, rng, "gender-loc")
    glob = build_corpus(args.originals, rng, "gender-glob")
    print(f"C_loc summaries: {len(loc)}, C_glob summaries: {len(glob)}")
    nlp.spacy_pipeline()

    counted = 0.0
    _, seconds = timed("word_list_inclusion (tokenise + d/s CIs)", word_list_inclusion, loc, **common)
    counted += seconds
    alignments, _ = timed("alignment: NER over C_loc summaries (model)", align_pairs, loc)
    _, seconds = timed("entity_inclusion (d/s CIs)", entity_inclusion, loc, alignments, **common)
    counted += seconds
    _, seconds = timed("entity_hallucination (d/s CIs)", entity_hallucination, loc, alignments, **common)
    counted += seconds
    _, seconds = timed("distinguishability_count (d CI)", distinguishability, glob, similarity="count", **common)
    counted += seconds

    rows = []
    for index in range(len(loc) // 4):
        group = "male" if index % 2 else "female"
        other = "female" if group == "male" else "male"
        outcomes = rng.random(4) < np.array([0.7, 0.7, 0.6, 0.6])
        rows += [quadruples.Outcome(f"q{index}", role, g, int(o)) for role, g, o in
                 zip(quadruples.QUADRUPLE_ROLES, (group, group, other, other), outcomes)]
    _, seconds = timed("quadruples: 4 measures (d CIs, p)", quadruples.quadruple_inconsistency, rows, **common)
    counted += seconds

    documents = []
    for index in range(len(loc)):
        n = 20
        documents.append(LabelledDocument(f"d{index}", tuple(str(i) for i in range(n)),
                                          tuple(int(x) for x in rng.random(n) < 0.3), tuple(rng.random(n))))
    _, seconds = timed("mbic over 13,660 documents (d CI)", mbic_result, documents, label_source="synthetic",
                       **common)
    counted += seconds

    summary_pairs = [SummaryPair(f"o{i}", "Donald Trump → Joe Biden", "Donald Trump", "Joe Biden", "2020",
                                 loc[i].summary.text + " Trump said.", loc[i + 1].summary.text + " Trump said.",
                                 ("Donald Trump", "Trump"), loc[i].input.text) for i in range(0, 4000, 2)]
    _, seconds = timed("politician_features (2,000 pairs, t-tests)", politician_features, summary_pairs, **common)
    counted += seconds
    _, seconds = timed("summary_similarity (2,000 pairs, FW)", summary_similarity, summary_pairs, **common)
    counted += seconds
    print(f"{'TOTAL count-based measures with CIs':<48s} {counted:8.2f} s (target < 30 s)")

    texts = [pair.summary.text for pair in loc[:10_000]]
    timed("fightin_words on 10,000 summaries", fightin_words, texts[:5000], texts[5000:])
    long_texts = [pair.input.text for pair in loc[:10_000]]
    timed("fightin_words on 10,000 articles (~250 words)", fightin_words, long_texts[:5000], long_texts[5000:])

    reviews = []
    for index in range(1500):
        units = [Unit(sentence(rng), value) for value in ("pos", "neg", "neu") for _ in range(3)]
        item = Input(id=f"r{index}", original_id=f"r{index // 3}", perturbation="sentiment",
                     text=" || ".join(u.text for u in units), units=units)
        reviews.append(Pair(item, Summary(item.id, "synthetic", " ".join(u.text for u in units[:3]))))
    timed("bur/uer/auc/sof n-gram, 1,500 samples (spaCy)", perspective_fairness, reviews, **common)

    if not args.skip_dense:
        nlp.sentence_encoder()
        texts = [pair.summary.text for pair in glob]
        vectors, seconds = timed(f"dense embeddings of {len(texts)} summaries", nlp.embed, texts)
        sentences = sum(text.count(".") for text in texts)
        print(f"{'dense embedding throughput (batched)':<48s} {len(texts) / seconds:8.1f} summaries/s, "
              f"{sentences / seconds:.1f} sentences/s")
        timed("distinguishability_dense given embeddings (d CI)", distinguishability, glob, similarity="dense",
              embeddings=vectors, **common)


if __name__ == "__main__":
    main()
