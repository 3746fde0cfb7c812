"""Time the swap review (issue 14): building every input of the Audit page's default choice on the demo corpus
(gender-glob, 3 draws; what the page's review section caches) and reviewing them, and the review of a larger corpus
(the demo articles 8 times over, 10 draws) to show that the checklist stays a small share of building the inputs."""

from __future__ import annotations

import os
import time

from bias_core.common.records import Document
from bias_core.documents.corpus import load_documents
from bias_core.perturb.review import review_inputs, sample_inputs
from bias_core.reference.demo import DEMO_NEWS
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.pipeline import build_inputs


def timed(documents: list[Document], samples: int, kinds: tuple[str, ...]) -> None:
    perturbations = [StageSpec(kind, {} if kind == "politician" else {"samples": samples}) for kind in kinds]
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[], seed=0,
                         perturbations=[StageSpec("identity"), *perturbations])
    start = time.perf_counter()
    inputs, reports = build_inputs(documents, config)
    built = time.perf_counter() - start
    start = time.perf_counter()
    review = review_inputs(inputs, reports)
    sample_inputs(inputs, 3, 0)
    reviewed = time.perf_counter() - start
    found = sum(check.occurrences for perturbation in review.perturbations for check in perturbation.checks
                if check.key != "skipped")
    print(f"{len(documents)} originals, {'+'.join(kinds)} × {samples} draws: {len(inputs)} inputs built in "
          f"{built:.2f} s, reviewed in {reviewed:.3f} s ({100 * reviewed / built:.1f}% of building); "
          f"{found} findings")


def main() -> None:
    demo = load_documents(DEMO_NEWS)
    print(f"load average {os.getloadavg()[0]:.2f}")
    timed(demo, 3, ("gender-glob",))
    timed(demo, 3, ("gender-loc", "gender-glob", "race", "politician"))
    larger = [Document(id=f"{d.id}#{copy}", text=d.text) for copy in range(8) for d in demo]
    timed(larger, 10, ("gender-glob",))


if __name__ == "__main__":
    main()
