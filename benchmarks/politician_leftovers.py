"""Politician swap on ABC-style articles with every kind of name form: leftover original-name tokens in the
swapped arm, skipped articles and stray pronouns of the original's gender next to the new name (issue 10).

Each article in ``tests/fixtures/perturb/politician_articles.jsonl`` names its pair and the tokens of the
original politician's alias set (first names, nickname, middle name or initial, last name). A leftover is any
whole-word, case-insensitive occurrence of such a token in the swapped text.

Run: .venv/bin/python benchmarks/politician_leftovers.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARTICLES = REPO / "tests" / "fixtures" / "perturb" / "politician_articles.jsonl"


def main() -> None:
    from bias_core.perturb import PoliticianSwap, build_templates
    from bias_core.records import Document

    rows = [json.loads(line) for line in ARTICLES.read_text(encoding="utf-8").splitlines() if line.strip()]
    templates = build_templates([Document(id=row["id"], text=row["text"]) for row in rows])
    leftovers = skipped = with_leftover = 0
    for row, template in zip(rows, templates, strict=True):
        result = PoliticianSwap(pairs=(row["pair"],)).run_templates([template])
        swapped = [item for item in result.inputs if item.role == "swap1"]
        if not swapped:
            skipped += 1
            print(f"{row['id']:26s} SKIPPED: {result.report.skipped[0].reason}")
            continue
        text = swapped[0].text
        found = [m.group(0) for m in re.finditer(
            r"(?<![\w])(?:" + "|".join(map(re.escape, row["alias"])) + r")(?![\w])", text, flags=re.IGNORECASE)]
        leftovers += len(found)
        with_leftover += bool(found)
        print(f"{row['id']:26s} leftovers={len(found)} {found}\n{'':26s} {text}")
    print(f"\narticles {len(rows)}  skipped {skipped}  leftover tokens {leftovers}  "
          f"swapped articles with a leftover {with_leftover}")


if __name__ == "__main__":
    main()
