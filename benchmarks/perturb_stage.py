"""The perturbation stage's time on the demo's corpus (issue 27: at most 1.5× before): parse and entity templates of
the 42 real-news articles, then gender-loc, gender-glob and race with 3 name draws each; best of 3 runs.

    .venv/bin/python benchmarks/perturb_stage.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bias_core.common.paths import REAL_NEWS  # noqa: E402
from bias_core.documents.corpus import load_documents  # noqa: E402
from bias_core.perturb import build_templates, get_perturbation  # noqa: E402

KINDS = ("gender-loc", "gender-glob", "race")


def main() -> None:
    documents = load_documents(REAL_NEWS)
    build_templates(documents[:2])  # load the models outside the timing
    best = None
    for _ in range(3):
        started = time.perf_counter()
        templates = build_templates(documents)
        parsed = time.perf_counter()
        inputs = sum(len(get_perturbation(kind, samples=3).run_templates(templates).inputs) for kind in KINDS)
        done = time.perf_counter()
        if best is None or done - started < best[0]:
            best = (done - started, parsed - started, done - parsed, inputs)
    total, parse, fill, inputs = best
    print(f"{len(documents)} originals, {inputs} inputs: {total:.1f} s (parse and templates {parse:.1f} s, "
          f"filling {fill:.1f} s), best of 3")


if __name__ == "__main__":
    main()
