"""Time the perturbation stage of an audit with several name perturbations (issue 13: one parse per original).

Builds ``--originals`` distinct ~400-word originals from the demo articles (as ``pipeline.py`` does) and runs the
audit's perturbation stage (``pipeline.build_inputs``) with identity, gender-loc (10 draws, controls), gender-glob
(10 draws) and race (10 draws), after loading the spaCy model. To compare with an older commit (one parse per
perturbation), run it with ``PYTHONPATH`` pointing at an export of that commit's ``bias_core``.

    .venv/bin/python benchmarks/shared_parse.py [--originals 60]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pipeline import corpus  # noqa: E402

import bias_core  # noqa: E402
from bias_core.common import nlp  # noqa: E402
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec  # noqa: E402
from bias_core.runs.pipeline import build_inputs  # noqa: E402

PERTURBATIONS = [StageSpec("identity"), StageSpec("gender-loc", {"samples": 10, "controls": True}),
                 StageSpec("gender-glob", {"samples": 10}), StageSpec("race", {"samples": 10})]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--originals", type=int, default=60)
    args = parser.parse_args()
    documents = corpus(args.originals)
    config = AuditConfig(corpus=CorpusSpec("bench"), summarizers=[StageSpec("lead-3")], perturbations=PERTURBATIONS)
    nlp.spacy_pipeline()
    print(f"bias_core from {Path(bias_core.__file__).parent}; cores: {os.cpu_count()}; "
          f"load average before: {os.getloadavg()[0]:.1f}")
    started = time.perf_counter()
    inputs, _ = build_inputs(documents, config)
    seconds = time.perf_counter() - started
    digest = hashlib.sha256(json.dumps([item.to_dict() for item in inputs], sort_keys=True).encode()).hexdigest()
    print(f"perturbation stage, {len(documents)} originals, identity + gender-loc + gender-glob + race: "
          f"{seconds:.1f} s, {len(inputs)} inputs (sha256 {digest[:12]}); load average after: "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
