"""Politician swap on ABC-style articles with every kind of name form: leftover original-name tokens in the
swapped arm, skipped articles, and titles and pronouns of the original's gender left where the new politician's
gender differs (issue 10).

Each article in ``tests/fixtures/perturb/politician_articles.jsonl`` names its pair and the tokens of the
original politician's alias set (first names, nickname, middle name or initial, last name). A leftover is any
whole-word, case-insensitive occurrence of such a token in the swapped text. ``wrong_gender`` lists the words
(case-sensitive) that would be of the wrong gender after a swap between a man and a woman; in these articles every
pronoun refers to the politician.

Run: .venv/bin/python benchmarks/politician_leftovers.py [ARTICLES.jsonl]
(``tests/fixtures/perturb/politician_articles_heldout.jsonl`` holds articles written after the swap was changed,
never used to tune it.)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARTICLES = REPO / "tests" / "fixtures" / "perturb" / "politician_articles.jsonl"


def main(path: Path = ARTICLES) -> None:
    from bias_core.common.records import Document
    from bias_core.perturb import PoliticianSwap, build_templates

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    templates = build_templates([Document(id=row["id"], text=row["text"]) for row in rows])
    leftovers = skipped = with_leftover = wrong_gender = 0
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
        stray = [m.group(0) for m in re.finditer(
            r"(?<![\w])(?:" + "|".join(map(re.escape, row["wrong_gender"])) + r")(?![\w])", text)] \
            if row["wrong_gender"] else []
        wrong_gender += len(stray)
        leftovers += len(found)
        with_leftover += bool(found)
        print(f"{row['id']:26s} leftovers={len(found)} {found} wrong-gender words={len(stray)} {stray}\n"
              f"{'':26s} {text}")
    print(f"\narticles {len(rows)}  skipped {skipped}  leftover tokens {leftovers}  "
          f"swapped articles with a leftover {with_leftover}  wrong-gender titles/pronouns {wrong_gender}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ARTICLES)
