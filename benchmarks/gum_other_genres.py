"""Coherence of the name-based perturbations on GUM genres outside the issue-27 gold (issue 27: more text to tune on).

The issue-27 gold (``coherence_gold.py``) holds GUM's news, interview and bio documents, split once into a tuning
half and a held-out half. Its tuning half is small (32 articles) and the held-out half fails about twice as often
(38.9% against 17.2% of gender-glob arm texts), so rules written from the tuning half alone fit its examples more
than their kinds. GUM annotates its other genres the same way (every mention of every entity, with coreference), so
this script builds the same gold for them — court transcripts, letters, speeches, essays, fiction, and any other
genre named — and prints how often each perturbation's arm texts contradict themselves there. These documents are
neither half of the gold: tuning on them never touches the held-out figures.

Nothing of GUM is shipped: the texts (licenses vary by genre, several non-commercial) are read from a local copy of
the GUM repository at run time and written to a temporary folder.

    .venv/bin/python benchmarks/gum_other_genres.py /path/to/gum.git --genres court,letter,speech,essay,fiction
    .venv/bin/python benchmarks/gum_other_genres.py /path/to/gum.git --perturbation race --show 10

Measured at 6879ebe (2026-11-27), gender-glob, 5 samples: court 18.8%, essay 0.0%, fiction 50.0%, letter 37.5%,
speech 25.0% of arm texts with any incoherence (165 of 520; 52 documents with people, 5 to 19 per genre).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "data" / "news_real"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from build_gum_gold import gold_for  # noqa: E402
from build_wikinews import MAX_WORDS, MIN_WORDS, _document, _git  # noqa: E402
from coherence_gold import Judge  # noqa: E402

# Genres the issue-27 gold already holds (and splits into its two halves): never built here.
GOLD_GENRES = ("news", "interview", "bio")


def build(gitdir: str, genres: list[str], folder: Path) -> tuple[Path, dict[str, dict]]:
    """Write the documents of ``genres`` (MIN_WORDS to MAX_WORDS words) to ``folder``/docs.jsonl; return that path
    and each document's gold (``build_gum_gold.gold_for``)."""
    chosen = [g for g in genres if g not in GOLD_GENRES]
    paths = [p for p in _git(gitdir, "ls-tree", "--name-only", "HEAD", "dep/").split()
             if re.match(r"dep/GUM_(%s)_\w+\.conllu$" % "|".join(map(re.escape, chosen)), p)]
    documents, golds = [], {}
    for path in paths:
        name = path[len("dep/"):-len(".conllu")]
        conllu = _git(gitdir, "show", f"HEAD:{path}")
        document = _document(name, conllu, f"GUM ({name}), read at run time")
        document["id"] = name
        if not MIN_WORDS <= len(document["text"].split()) <= MAX_WORDS:
            continue
        gold = gold_for(name, document["text"], conllu)
        gold["genre"] = name.split("_")[1]
        documents.append(document)
        golds[name] = gold
    target = folder / "docs.jsonl"
    target.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in documents), encoding="utf-8")
    return target, golds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gitdir", help="a local copy (git directory) of github.com/amir-zeldes/gum")
    parser.add_argument("--genres", default="court,letter,speech,essay,fiction")
    parser.add_argument("--perturbation", default="gender-glob")
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--show", type=int, default=0, help="print this many incoherence lines per genre")
    args = parser.parse_args()

    from bias_core.documents.corpus import load_documents
    from bias_core.perturb import get_perturbation
    from bias_core.perturb.templates import build_templates

    with tempfile.TemporaryDirectory() as folder:
        path, golds = build(args.gitdir, args.genres.split(","), Path(folder))
        documents = load_documents(path)
    templates = build_templates(documents)
    result = get_perturbation(args.perturbation, samples=args.samples, seed=0).run_templates(templates)
    judges = {d.id: Judge(d.text, golds[d.id]) for d in documents}
    bad, total, shown = Counter(), Counter(), Counter()
    for item in result.inputs:
        if item.arm is None:
            continue
        genre = golds[item.original_id]["genre"]
        lines = judges[item.original_id].problems(item)[0]
        total[genre] += 1
        bad[genre] += bool(lines)
        for line in lines:
            if shown[genre] < args.show:
                shown[genre] += 1
                print(f"  {item.original_id} [{item.arm}] {line}")
    print(f"{args.perturbation}, {args.samples} samples: arm texts with any incoherence")
    for genre in sorted(total):
        print(f"  {genre}: {bad[genre]} of {total[genre]} ({bad[genre] / total[genre]:.1%})")
    print(f"  all: {sum(bad.values())} of {sum(total.values())} ({sum(bad.values()) / max(sum(total.values()), 1):.1%})")


if __name__ == "__main__":
    main()
