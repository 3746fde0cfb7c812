"""How long each page takes to render on the stored demo run (AppTest, no browser): the first render of a page
(caches cold) and a rerun after an interaction (caches warm).

Run: .venv/bin/python benchmarks/app_pages.py [--pause SECONDS] [--store PATH --run RUN_ID] [--each-first]

``--pause`` waits that long after the start before the first page, as a reader does who looks at the Overview first
(the app imports the result pages' libraries in the background meanwhile); 0 measures a click at once. ``--store``
and ``--run`` time the pages on another run (e.g. a 200-article audit) instead of the demo run. ``--each-first``
opens each page as the first one after a fresh start (one process per page, five starts each, the median and the
slowest printed): the reader who goes straight to that page, the worst case for the background imports.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGES = ("pages/compare.py", "pages/fightin_words.py", "pages/metrics.py", "pages/runs.py", "pages/overview.py")
STARTS = 5


def each_first(args) -> None:
    """Each page as the first click after a fresh start, ``STARTS`` times (``--only`` in a child process)."""
    for page in PAGES:
        times = []
        for _ in range(STARTS):
            command = [sys.executable, __file__, "--only", page, "--pause", str(args.pause)]
            if args.store:
                command += ["--store", args.store, "--run", args.run]
            out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO).stdout
            times.append(float(out.strip().splitlines()[-1]))
        print(f"{page:45s} first click {args.pause:.0f} s after the start: median {statistics.median(times):5.2f} s, "
              f"slowest {max(times):5.2f} s")


def main() -> None:
    import argparse

    from streamlit.testing.v1 import AppTest

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between the start and the first page")
    parser.add_argument("--store", help="a run store to open instead of a new one with the demo run")
    parser.add_argument("--run", help="the run to open (with --store)")
    parser.add_argument("--each-first", action="store_true", help="each page as the first after a fresh start")
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one page after the start; prints its seconds
    args = parser.parse_args()
    if args.each_first:
        each_first(args)
        return
    with tempfile.TemporaryDirectory() as folder:
        os.environ["SUMMBIAS_STORE"] = args.store or str(Path(folder) / "runs.sqlite")
        if args.store:
            os.environ["SUMMBIAS_NO_DEMO"] = "1"
        else:
            os.environ.pop("SUMMBIAS_NO_DEMO", None)
        app = AppTest.from_file(str(REPO / "app.py"), default_timeout=300)
        if args.run:
            app.query_params["run"] = args.run
        started = time.perf_counter()
        app.run()
        start = time.perf_counter() - started
        time.sleep(args.pause)
        if args.only:
            started = time.perf_counter()
            app.switch_page(args.only).run()
            assert not app.exception, app.exception
            print(f"{time.perf_counter() - started:.3f}")
            return
        print(f"{'first start (imports the demo run)':45s} {start:6.2f} s")
        for page, interact in (
            ("pages/compare.py", lambda at: at.selectbox(key="compare_original").set_value(
                at.selectbox(key="compare_original").options[3])),
            ("pages/fightin_words.py", lambda at: at.radio(key="fw_prior").set_value("informative")),
            ("pages/metrics.py", lambda at: at.radio(key="metrics_ci_kind").set_value("s")),
            ("pages/runs.py", lambda at: at.selectbox(key="runs_selected")),
        ):
            try:
                started = time.perf_counter()
                app.switch_page(page).run()
            except ValueError:  # AppTest cannot carry a widget of the last page over (a selectbox left empty)
                app = AppTest.from_file(str(REPO / "app.py"), default_timeout=300)
                if args.run:
                    app.query_params["run"] = args.run
                app.run()
                started = time.perf_counter()
                app.switch_page(page).run()
            first = time.perf_counter() - started
            try:
                interact(app)
                started = time.perf_counter()
                app.run()
                again = time.perf_counter() - started
            except (KeyError, ValueError, StopIteration):  # the run has no such choice
                print(f"{page:45s} first {first:6.2f} s | no such interaction on this run")
                continue
            assert not app.exception, app.exception
            print(f"{page:45s} first {first:6.2f} s | after an interaction {again:6.2f} s")


if __name__ == "__main__":
    main()
