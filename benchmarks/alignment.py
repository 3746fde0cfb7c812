"""Time NER alignment of summaries at paper scale (Steen & Markert: 683 originals × 20 inputs = 13,660 summaries).

The synthetic C_loc corpus of ``benchmarks/measures.py`` (same seed), aligned by ``steen_markert.align_pairs``: spaCy
NER over every summary, then the alignment rules (METHODS §3). The spaCy model is loaded before timing. To compare
with an older commit, run the same script with ``PYTHONPATH`` pointing at an export of that commit's ``bias_core``.

    .venv/bin/python benchmarks/alignment.py [--originals 683]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measures import build_corpus  # noqa: E402

import bias_core  # noqa: E402
from bias_core.common import nlp  # noqa: E402
from bias_core.measures.steen_markert import align_pairs  # noqa: E402


def _children_cpu() -> float:
    """CPU seconds of this process's finished child processes (the parse workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--originals", type=int, default=683)
    args = parser.parse_args()
    pairs = build_corpus(args.originals, np.random.default_rng(0), "gender-loc")
    texts = [pair.summary.text for pair in pairs]
    nlp.spacy_pipeline()
    print(f"bias_core from {Path(bias_core.__file__).parent}; cores: {os.cpu_count()}; "
          f"load average before: {os.getloadavg()[0]:.1f}")
    print(f"summaries: {len(texts)} ({len(set(texts))} distinct)")
    started = time.perf_counter()
    cpu, children = time.process_time(), _children_cpu()
    alignments = align_pairs(pairs)
    seconds = time.perf_counter() - started
    print(f"NER alignment: {seconds:.1f} s wall ({time.process_time() - cpu:.1f} s CPU in this process, "
          f"{_children_cpu() - children:.1f} s in worker processes), "
          f"{len(texts) / seconds:.0f} summaries/s; persons found: {sum(len(a.persons) for a in alignments)}; "
          f"load average after: {os.getloadavg()[0]:.1f} (target ≤ 20 s)")


if __name__ == "__main__":
    main()
