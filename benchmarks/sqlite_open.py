"""Print what the checks on opening a run store cost: seconds to open stores of growing size, with and without
``PRAGMA quick_check`` (bias_core/common/sqlite_files.py runs it on files up to ``QUICK_CHECK_MAX_BYTES``).

Each store holds runs of inputs with ~2 kB texts (like the audits' stored inputs); the OS page cache is warm, as it
is when the app or an audit reopens a store it just used.

    .venv/bin/python benchmarks/sqlite_open.py [--sizes 10,100,300]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import bias_core.common.sqlite_files as sqlite_files  # noqa: E402
from bias_core.common.records import Input  # noqa: E402
from bias_core.runs.store import RunStore  # noqa: E402


def build(path: Path, megabytes: int) -> None:
    store = RunStore(path)
    text = "word " * 400
    while path.stat().st_size < megabytes * 2**20:
        run_id = store.create_run({}, "hash", {})
        store.add_inputs(run_id, [Input(id=f"i{k}", original_id="d", text=text) for k in range(2000)])
    store.close()


def seconds_to_open(path: Path, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        RunStore(path).close()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,300", help="store sizes in MB, comma-separated")
    args = parser.parse_args()
    limit = sqlite_files.QUICK_CHECK_MAX_BYTES
    print(f"quick_check runs on files up to {limit / 2**20:.0f} MB")
    print(f"{'store MB':>9} {'open with quick_check s':>24} {'open without s':>15}")
    with tempfile.TemporaryDirectory() as folder:
        for megabytes in (int(size) for size in args.sizes.split(",")):
            path = Path(folder) / f"runs-{megabytes}.sqlite"
            build(path, megabytes)
            sqlite_files.QUICK_CHECK_MAX_BYTES = 2**62
            checked = seconds_to_open(path)
            sqlite_files.QUICK_CHECK_MAX_BYTES = 0
            unchecked = seconds_to_open(path)
            sqlite_files.QUICK_CHECK_MAX_BYTES = limit
            print(f"{path.stat().st_size / 2**20:9.0f} {checked:24.3f} {unchecked:15.3f}")


if __name__ == "__main__":
    main()
