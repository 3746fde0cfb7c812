"""Print how `perturb` scales with many tiny documents: documents/s at each corpus size (issue 12, item 6).

Generates N seeded news-like documents of two or three sentences, each naming one or two people with pronouns, and
runs the perturbation engine over them (parse, entity templates, name draws) the way ``python -m bias_core perturb``
does, progress bar included. Throughput should stay flat as N grows (linear total time). CPU seconds (this process
and its spaCy workers) are printed beside wall-clock seconds, because on a shared machine the wall clock mostly
measures the other work.

    .venv/bin/python benchmarks/perturb_scale.py [--sizes 2000,8000,50000] [--kind gender-loc] [--samples 10]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tqdm import tqdm  # noqa: E402

from bias_core.common import nlp  # noqa: E402
from bias_core.common.records import Document  # noqa: E402
from bias_core.perturb import get_perturbation  # noqa: E402

FIRST = {"he": ("Robert", "James", "Michael", "David", "William", "Thomas", "Daniel", "Mark"),
         "she": ("Linda", "Mary", "Susan", "Karen", "Nancy", "Laura", "Sarah", "Emily")}
LAST = ("Moore", "Taylor", "Anderson", "Clark", "Lewis", "Walker", "Young", "Hill", "Baker", "Nelson")
BODIES = ("city council", "school board", "hospital", "transit agency", "water district", "museum")
ACTIONS = ("approved the budget", "delayed the vote", "announced new hours", "opened an inquiry", "hired a director")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def tiny_documents(count: int, seed: int = 0) -> list[Document]:
    """``count`` seeded two-to-three-sentence news items naming one or two people, each with a pronoun."""
    rng = random.Random(seed)
    documents = []
    for index in range(count):
        pronoun = rng.choice(("he", "she"))
        name = f"{rng.choice(FIRST[pronoun])} {rng.choice(LAST)}"
        body, action, day = rng.choice(BODIES), rng.choice(ACTIONS), rng.choice(DAYS)
        text = f"The {body} {action} on {day}, {name} said. {pronoun.capitalize()} called it a fair outcome."
        if rng.random() < 0.5:
            other = rng.choice(("he", "she"))
            text += f" {rng.choice(FIRST[other])} {rng.choice(LAST)} disagreed, saying {other} expected more."
        documents.append(Document(id=f"n{index}", text=text))
    return documents


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its finished children (spaCy worker processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,8000,50000", help="comma-separated corpus sizes")
    parser.add_argument("--kind", default="gender-loc", help="perturbation (default gender-loc)")
    parser.add_argument("--samples", type=int, default=10, help="name draws per original (default 10)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    print(f"load average before the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          "(other work slows the figures)")
    started = time.perf_counter()
    nlp.spacy_pipeline()
    print(f"spaCy load: {time.perf_counter() - started:.1f} s (not counted below)")
    for size in sizes:
        documents = tiny_documents(size)
        perturbation = get_perturbation(args.kind, samples=args.samples)
        cpu_before, started = cpu_seconds(), time.perf_counter()
        with tqdm(total=size, unit="document", file=sys.stderr, disable=args.quiet) as bar:
            result = perturbation.run_with_progress(documents, progress=bar.update)
        seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu_before
        print(f"{size} documents, {args.kind}: {seconds:.1f} s = {size / seconds:.0f} documents/s wall-clock; "
              f"{cpu:.1f} CPU s = {size / cpu:.0f} documents per CPU second; {len(result.inputs)} inputs, "
              f"{len(result.report.skipped)} skipped", flush=True)


if __name__ == "__main__":
    main()
