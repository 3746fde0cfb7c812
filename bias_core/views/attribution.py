"""Who wrote a run's documents and under which license, from each document's ``meta`` (``attribution``, ``license``),
so the Overview and the report credit openly licensed articles (Wikinews is CC BY 2.5: attribution is a condition of
showing its texts and their perturbed versions)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from bias_core.common.records import Document
from bias_core.common.words import counted


def attribution_lines(documents: Iterable[Document]) -> list[str]:
    """One plain-text line per (author, license) among ``documents`` that name one, most documents first, e.g.
    "34 documents by Wikinews contributors, CC BY 2.5 (https://creativecommons.org/licenses/by/2.5/); their perturbed
    versions and summaries are shown under the same license". Documents without ``meta.license`` add nothing."""
    credited: Counter[tuple[str, str]] = Counter()
    for document in documents:
        meta = document.meta or {}
        license_ = str(meta.get("license") or "").strip()
        if license_:
            credited[(str(meta.get("attribution") or "their authors").strip(), license_)] += 1
    return [f"{counted(count, 'document')} by {author}, {license_}; their perturbed versions and summaries are shown "
            "under the same license"
            for (author, license_), count in sorted(credited.items(), key=lambda item: (-item[1], item[0]))]
