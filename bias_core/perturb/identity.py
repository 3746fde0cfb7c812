"""Identity: every original unchanged, the noise floor of every measure (METHODS §1.7).

``repeats`` > 1 makes that many copies per original (sample ids 0, 1, …) for non-deterministic summarizers, which
METHODS asks to run twice; copy 0 is ``Input.from_document`` (id ``<doc>/identity``), later copies get
``<doc>/identity/s<k>``. Summarizer caches key on the input text, so repeats only differ when the summarizer samples
and its cache key includes the input id or a seed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from bias_core.common.records import Document, Input
from bias_core.perturb.base import Perturbation, PerturbationResult, SkipReport
from bias_core.safety.validation import SAMPLES


@dataclass(frozen=True)
class IdentityConfig:
    """How many unchanged copies of each original to make."""

    repeats: int = 1

    def __post_init__(self) -> None:
        SAMPLES.check("repeats", self.repeats)  # ParamError is a ValueError: "repeats = 0 is out of range: …"


class Identity(Perturbation):
    """The unchanged originals (METHODS §1.7)."""

    name = "identity"
    config_class = IdentityConfig
    config: IdentityConfig

    def run(self, documents: Sequence[Document]) -> PerturbationResult:
        """Return ``repeats`` identity inputs per original; nothing is ever skipped."""
        inputs = []
        for document in documents:
            first = Input.from_document(document)
            if document.meta:
                first.extra["meta"] = document.meta
            inputs.append(first)
            inputs += [dataclasses.replace(first, id=f"{first.id}/s{k}", sample_id=k)
                       for k in range(1, self.config.repeats)]
        return PerturbationResult(inputs, SkipReport(n_originals=len(documents)),
                                  {**self.run_info(), "n_inputs": len(inputs)})
