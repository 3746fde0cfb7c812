"""How long each page takes to render on the stored demo run (AppTest, no browser): the first render of a page
(caches cold) and a rerun after an interaction (caches warm).

Run: .venv/bin/python benchmarks/app_pages.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    from streamlit.testing.v1 import AppTest

    with tempfile.TemporaryDirectory() as folder:
        os.environ["SUMMBIAS_STORE"] = str(Path(folder) / "runs.sqlite")
        os.environ.pop("SUMMBIAS_NO_DEMO", None)
        app = AppTest.from_file(str(REPO / "app.py"), default_timeout=300)
        started = time.perf_counter()
        app.run()
        print(f"{'first start (imports the demo run)':45s} {time.perf_counter() - started:6.2f} s")
        for page, interact in (
            ("pages/compare.py", lambda at: at.selectbox(key="compare_original").set_value(
                at.selectbox(key="compare_original").options[3])),
            ("pages/fightin_words.py", lambda at: at.radio(key="fw_prior").set_value("informative")),
            ("pages/metrics.py", lambda at: at.radio(key="metrics_ci_kind").set_value("s")),
            ("pages/runs.py", lambda at: at.selectbox(key="runs_selected")),
        ):
            started = time.perf_counter()
            app.switch_page(page).run()
            first = time.perf_counter() - started
            interact(app)
            started = time.perf_counter()
            app.run()
            again = time.perf_counter() - started
            assert not app.exception, app.exception
            print(f"{page:45s} first {first:6.2f} s | after an interaction {again:6.2f} s")


if __name__ == "__main__":
    main()
