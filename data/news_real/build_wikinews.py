"""Rebuild ``data/news_real/wikinews.jsonl`` from the GUM corpus (Wikinews texts, CC BY 2.5).

The English Wikinews documents of GUM (Zeldes 2017; https://github.com/amir-zeldes/gum): its 24 ``news`` and 19
``interview`` documents, all taken from en.wikinews.org; the 42 of 150-1,500 words are kept. GUM's ``dep/*.conllu``
files keep each sentence's original text (``# text =``, with the published spacing), the paragraph breaks
(``# newpar``, with each block's kind and sentence count) and the page's metadata (``# meta::title``,
``dateCreated``, ``sourceURL``). This script joins the sentences of a paragraph with one space and the paragraphs
with a blank line; a sentence after the last one its block counts starts a new paragraph. It drops only what is page
furniture rather than article text: the first heading (the headline, kept in ``meta.title``) and image blocks
(``figure`` / ``caption``: a caption and its image credit).
Dates, section headings, block quotes, typos and the interviews' question/answer layout stay as published.

Usage (GUM is read from a git directory, e.g. a bare clone)::

    python data/news_real/build_wikinews.py /path/to/gum.git > data/news_real/wikinews.jsonl
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

LICENSE = "CC BY 2.5 (https://creativecommons.org/licenses/by/2.5/)"
ATTRIBUTION = "Wikinews contributors"
MIN_WORDS, MAX_WORDS = 150, 1500  # the calibration corpus's length range; GUM_news_worship (132 words) is left out


def _git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True,
                          text=True).stdout


def _document(name: str, conllu: str, source: str, kept: list[bool] | None = None) -> dict:
    """One article; ``kept``, when given, receives for each sentence whether the text keeps it."""
    meta: dict[str, str] = {}
    paragraphs: list[list[str]] = []
    first_head_seen = False
    skip = False
    remaining = 0  # sentences left in the current block; text after a block's last sentence is a new paragraph
    for line in conllu.splitlines():
        if line.startswith("# meta::"):
            key, _, value = line[len("# meta::"):].partition(" = ")
            meta[key] = value
        elif line.startswith("# newpar_block = "):
            block = line[len("# newpar_block = "):]
            kind = block.split()[0]
            count = re.search(r"\((\d+) s\)", block)
            remaining = int(count.group(1)) if count else 10**9
            skip = kind in ("figure", "caption") or (kind == "head" and not first_head_seen)
            if kind == "head":
                first_head_seen = True
            paragraphs.append([])
        elif line.startswith("# text = "):
            if remaining <= 0:
                # a sentence outside any block (GUM keeps the page's loose text between blocks)
                skip = False
                remaining = 10**9
                paragraphs.append([])
            if not paragraphs:
                paragraphs.append([])
            if not skip:
                paragraphs[-1].append(line[len("# text = "):])
            if kept is not None:
                kept.append(not skip)
            remaining -= 1
    text = "\n\n".join(" ".join(p) for p in paragraphs if p)
    genre = name.split("_")[1]
    return {
        "id": "wikinews-" + name.split("_", 2)[2],
        "text": text,
        "meta": {
            "title": meta.get("title", ""),
            "date": meta.get("dateCreated", ""),
            "url": meta.get("sourceURL", ""),
            "license": LICENSE,
            "attribution": ATTRIBUTION,
            "source": source,
            "genre": genre,
        },
    }


def main(gitdir: str) -> None:
    commit = _git(gitdir, "rev-parse", "HEAD").strip()
    source = f"Wikinews, via GUM (github.com/amir-zeldes/gum @ {commit[:7]}, dep/{{name}}.conllu)"
    names = [p for p in _git(gitdir, "ls-tree", "--name-only", "HEAD", "dep/").split()
             if re.match(r"dep/GUM_(news|interview)_\w+\.conllu$", p)]
    for path in sorted(names):
        name = path[len("dep/"):-len(".conllu")]
        doc = _document(name, _git(gitdir, "show", f"HEAD:{path}"), source.format(name=name))
        if not MIN_WORDS <= len(doc["text"].split()) <= MAX_WORDS:
            continue
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
