"""`python -m bias_core cache`: show the summary cache, or move a damaged one aside with ``--reset``.

``--reset`` renames the file and its -wal/-shm to ``<name>.corrupt-<timestamp>`` and creates an empty cache in its
place; the next audit or summarize recomputes what it needs and refills it. Stop audits that use the cache first. A
file that is not a summary cache (text, a run store) is refused in one line and left as it is.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bias_core.summarize.cache import SummaryCache, default_cache_path, move_cache_aside


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "cache", help="show the summary cache, or move a damaged one aside (--reset)",
        description="Print the summary cache's path and size. With --reset, rename it (and its -wal/-shm) to "
                    "<name>.corrupt-<timestamp> and start an empty cache; summaries are recomputed when needed.")
    parser.add_argument("--cache", type=Path, help="summary cache file (default: $SUMMBIAS_CACHE or the user cache "
                                                   "folder)")
    parser.add_argument("--reset", action="store_true", help="move the cache aside and start an empty one")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = args.cache or default_cache_path()
    if args.reset:
        moved = move_cache_aside(path)
        SummaryCache(path).close()
        if moved is None:
            print(f"there was no summary cache at {path}; created an empty one")
        else:
            print(f"moved the summary cache {path} aside to {moved}; an empty cache is in its place")
        return 0
    if not path.exists():
        print(f"no summary cache at {path} yet; the first summarize or audit creates it")
        return 0
    cache = SummaryCache(path, read_only=True)
    try:
        print(f"{path}: {len(cache)} summaries, {path.stat().st_size / 2**20:.1f} MB")
    finally:
        cache.close()
    return 0
