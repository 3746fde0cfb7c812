"""Time from the README's start command to the first demo finding on screen (issue 13: target ≤ 5 s).

Starts `./scripts/start.sh` (already set up: the install is skipped) with an empty run store, opens the app in
headless Chromium and times, from the start command: the server answering, the first demo finding drawn on the
landing page (the Overview page, which opens on the demo run: its strongest finding's sentence), the landing page's
script finished, and the demo run's results on Compare (ranking table and summaries; the figure measured before the
Overview page existed). Run:
    .venv/bin/python benchmarks/app_start.py [--runs 3] [--repo CHECKOUT]

Chromium is started before the start command (an analyst's browser is already open); before issue 13 this script
started it after, so its figures included Chromium's own start.

The machine's load average is printed beside each run: on a shared machine, read the figures with it.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parent.parent


def first_finding() -> str | None:
    """The sentence the Overview shows first (the strongest finding of the demo run), or None without a bundle."""
    from bias_core.demo import ensure_demo_run
    from bias_core.findings import run_findings
    from bias_core.store import RunStore

    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "runs.sqlite")
        run_id = ensure_demo_run(store)
        found = run_findings(store, run_id) if run_id else []
        store.close()
    return max(found, key=lambda finding: finding.strength).sentence if found else None


def one_start(browser, sentence: str | None, repo: Path) -> dict[str, float]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PORT": str(port), "SUMMBIAS_STORE": str(Path(folder) / "runs.sqlite")}
        env.pop("SUMMBIAS_NO_DEMO", None)
        started = time.perf_counter()
        server = subprocess.Popen(["./scripts/start.sh", "--server.address", "127.0.0.1"], cwd=repo, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            while True:
                try:
                    page.goto(f"http://127.0.0.1:{port}", timeout=2000)
                    break
                except Exception:  # the server is not listening yet
                    time.sleep(0.05)
            times["server answers"] = time.perf_counter() - started
            nav = page.get_by_test_id("stSidebarNav")
            if sentence:
                page.get_by_text(sentence, exact=False).first.wait_for(timeout=120_000)
                times["first demo finding (Overview)"] = time.perf_counter() - started
            page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=120_000)
            times["landing page finished"] = time.perf_counter() - started
            nav.get_by_role("link", name="Compare", exact=True).click()
            page.wait_for_selector("[data-testid=stDataFrame]", timeout=120_000)
            page.get_by_role("heading", name="lead-3").wait_for(timeout=120_000)
            times["demo results on Compare"] = time.perf_counter() - started
            page.close()
        finally:
            os.killpg(server.pid, 15)
            server.wait()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="the checkout whose scripts/start.sh to run (e.g. a copy with an older pages/)")
    args = parser.parse_args()
    sentence = first_finding()
    print(f"first finding expected: {sentence!r}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        for run in range(args.runs):
            load = os.getloadavg()[0]
            times = one_start(browser, sentence, args.repo)
            print(f"run {run + 1} (load average {load:.1f}): "
                  + "; ".join(f"start command -> {label}: {seconds:.1f} s" for label, seconds in times.items()))
        browser.close()


if __name__ == "__main__":
    main()
