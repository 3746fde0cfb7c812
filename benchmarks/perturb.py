"""Print the perturbation engine's throughput: originals/s and inputs/s, split into parsing and template filling.

Each original is parsed once into an entity template (spaCy NER + tagger + parser, METHODS §1.1); the 20 inputs per
original (C_loc default: 10 samples × pair) are then filled by string assembly. Articles are the ~600-word test
articles (tests/fixtures/perturb and tests/fixtures/articles), repeated to ``--originals`` documents.

    .venv/bin/python benchmarks/perturb.py [--originals 60] [--kind gender-loc] [--processes 1]

Target on the 2-core development machine with spaCy sm: ≥ 10 originals/s and ≥ 200 inputs/s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bias_core.common import nlp  # noqa: E402
from bias_core.common.records import Document  # noqa: E402
from bias_core.perturb import get_perturbation  # noqa: E402
from bias_core.perturb.race import race_first_names  # noqa: E402
from bias_core.perturb.rosenman import is_voter_first_name  # noqa: E402
from bias_core.perturb.templates import parse_documents, templates_from_parses  # noqa: E402

ARTICLE_FOLDERS = (REPO / "tests" / "fixtures" / "perturb", REPO / "tests" / "fixtures" / "articles")


def articles(count: int) -> list[Document]:
    texts = [path.read_text(encoding="utf-8") for folder in ARTICLE_FOLDERS for path in sorted(folder.glob("*.txt"))]
    return [Document(id=f"doc{i}", text=texts[i % len(texts)]) for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--originals", type=int, default=60)
    parser.add_argument("--kind", default="gender-loc", help="a name-based perturbation (default gender-loc)")
    parser.add_argument("--processes", type=int, help="spaCy worker processes (default: 2 from 16 originals on)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    documents = articles(args.originals)
    words = sum(len((d.text or "").split()) for d in documents) / len(documents)

    started = time.perf_counter()
    nlp.spacy_pipeline()
    is_voter_first_name("Ann")
    race_first_names("black", "male", 0.8, 50)
    load = time.perf_counter() - started

    started = time.perf_counter()
    parses = parse_documents(documents, n_process=args.processes)
    spacy_seconds = time.perf_counter() - started
    templates = templates_from_parses(documents, parses)
    parse = time.perf_counter() - started

    perturbation = get_perturbation(args.kind)
    started = time.perf_counter()
    result = perturbation.run_templates(templates)
    fill = time.perf_counter() - started

    total = parse + fill
    print(f"load average before the run: {load_before:.1f} on {os.cpu_count()} cores (other work slows the figures)")
    n_inputs = len(result.inputs)
    print(f"{len(documents)} originals of {words:.0f} words on average, {args.kind}, "
          f"{n_inputs / len(documents):.1f} inputs per original ({n_inputs} inputs)")
    print(f"one-time loading (spaCy model, name tables): {load:.2f} s")
    print(f"parse once (spaCy {spacy_seconds:.2f} s + entity templates {parse - spacy_seconds:.2f} s): {parse:.2f} s "
          f"= {len(documents) / parse:.1f} originals/s ({100 * parse / total:.0f}% of the time)")
    print(f"fill (names, pronouns, titles; substitution maps): {fill:.3f} s = {n_inputs / fill:.0f} inputs/s "
          f"({100 * fill / total:.0f}%)")
    print(f"end to end: {len(documents) / total:.1f} originals/s, {n_inputs / total:.0f} inputs/s")


if __name__ == "__main__":
    main()
