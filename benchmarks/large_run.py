"""A 200-article run to time the pages on (issue 31, Deliver 6): the shipped Wikinews and Wikipedia-biography articles
(`data/news_real`, 62) cycled to 200 ids, gender-glob with 2 samples, lead-3 and textrank, every measure that applies
(924 inputs, 1,848 summaries; about 3.5 min on 2 cores). Prints the store and the run id for `app_pages.py`.

    .venv/bin/python benchmarks/large_run.py --folder /tmp/large
    .venv/bin/python benchmarks/app_pages.py --pause 3 --store /tmp/large/runs.sqlite --run <printed run id>
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("data/news_real/wikinews.jsonl", "data/news_real/wikipedia_bio.jsonl")
CONFIG = """name = "200 articles"
seed = 0
[corpus]
path = "{corpus}"
[[perturbations]]
kind = "gender-glob"
samples = 2
[[summarizers]]
name = "lead-3"
[[summarizers]]
name = "textrank"
[measures]
names = []
bootstrap = 1000
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, required=True, help="where the corpus, config and store are written")
    parser.add_argument("--articles", type=int, default=200)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(line) for source in SOURCES for line in (REPO / source).read_text(encoding="utf-8").splitlines()
            if line.strip()]
    corpus = args.folder / f"articles{args.articles}.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"a{k:03d}-{rows[k % len(rows)]['id']}",
                                          "text": rows[k % len(rows)]["text"]}) + "\n" for k in range(args.articles)),
                      encoding="utf-8")
    config = args.folder / "audit.toml"
    config.write_text(CONFIG.format(corpus=corpus), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bias_core", "audit", "--config", str(config), "--store",
                           str(args.folder / "runs.sqlite"), "--cache", str(args.folder / "cache.sqlite"), "--quiet"],
                          cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "the audit failed")
    print(f"store {args.folder / 'runs.sqlite'} run {done.stdout.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
