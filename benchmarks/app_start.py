"""Time from the README's start command to the first results of the demo run in a browser.

Starts `./scripts/start.sh` (already set up: the install is skipped) with an empty run store, opens the app in
headless Chromium, goes to Compare and waits until the demo run's ranking table is drawn. Run:
    .venv/bin/python benchmarks/app_start.py
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PORT": str(port), "SUMMBIAS_STORE": str(Path(folder) / "runs.sqlite")}
        env.pop("SUMMBIAS_NO_DEMO", None)
        started = time.perf_counter()
        server = subprocess.Popen(["./scripts/start.sh", "--server.address", "127.0.0.1"], cwd=REPO, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
                page = browser.new_page(viewport={"width": 1280, "height": 1000})
                while True:
                    try:
                        page.goto(f"http://127.0.0.1:{port}", timeout=2000)
                        break
                    except Exception:  # the server is not listening yet
                        time.sleep(0.2)
                page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=120_000)
                shell = time.perf_counter() - started
                page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare", exact=True).click()
                page.wait_for_selector("[data-testid=stDataFrame]", timeout=120_000)
                page.get_by_role("heading", name="lead-3").wait_for(timeout=120_000)
                results = time.perf_counter() - started
                browser.close()
        finally:
            os.killpg(server.pid, 15)
            server.wait()
    print(f"start command -> app ready: {shell:.1f} s; -> demo results on Compare (ranking and summaries): "
          f"{results:.1f} s")


if __name__ == "__main__":
    main()
