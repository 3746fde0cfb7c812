"""Time from the README's start command to the first demo finding on screen (issue 13: target ≤ 5 s).

Starts `./scripts/start.sh` (already set up: the install is skipped) with an empty run store, opens the app in
headless Chromium and times, from the start command: the server listening (its health endpoint answers), the page
loaded in Chromium (Streamlit's frontend), the first demo finding drawn on the landing page (the Overview page, which
opens on the demo run: its strongest finding's sentence), the landing page's script finished, and the demo run's
results on Compare (ranking table and summaries; the figure measured before the Overview page existed). Run:
    .venv/bin/python benchmarks/app_start.py [--runs 3] [--repo CHECKOUT]

Chromium is started before the start command (an analyst's browser is already open); before issue 13 this script
started it after, so its figures included Chromium's own start.

On a shared machine the end-to-end figures move with the load, so the load average is printed beside each run, and
the CPU seconds of the parts the app controls are measured on their own (they move much less with the load): in a
fresh Python of the checkout, `import streamlit`; the app's own imports after it (app.py's and the Overview page's);
importing the demo run into an empty store; the demo run's findings as the Overview gets them (read as shipped where
the checkout ships them, else computed); and computing them with `run_findings` (for comparison).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parent.parent

# Run with the checkout's Python in the checkout (so --repo measures that checkout's code); prints CPU seconds.
CPU_PROBE = r"""
import json, os, sys, tempfile, time
sys.path.insert(0, os.getcwd())
cpu = time.process_time
marks = [cpu()]
import streamlit
marks.append(cpu())
import pages.common, pages.render, bias_core.verdicts.findings
marks.append(cpu())
from bias_core.reference.demo import ensure_demo_run
from bias_core.runs.store import RunStore
store = RunStore(os.path.join(tempfile.mkdtemp(), "runs.sqlite"))
run_id = ensure_demo_run(store)
marks.append(cpu())
try:
    from bias_core.reference.demo import demo_findings
    shipped = demo_findings(run_id, store.get_run(run_id).updated)
except ImportError:  # a checkout from before the demo findings were shipped
    shipped = None
from bias_core.verdicts.findings import run_findings
found = shipped if shipped is not None else run_findings(store, run_id)
marks.append(cpu())
run_findings(store, run_id)
marks.append(cpu())
labels = ["import streamlit", "app imports", "demo run import", "demo findings as the Overview gets them",
          "run_findings computed (for comparison)"]
print(json.dumps({"parts": dict(zip(labels, (b - a for a, b in zip(marks, marks[1:])))),
                  "shipped findings used": shipped is not None}))
"""


def first_finding() -> str | None:
    """The sentence the Overview shows first (the strongest finding of the demo run), or None without a bundle."""
    from bias_core.reference.demo import ensure_demo_run
    from bias_core.runs.store import RunStore
    from bias_core.verdicts.findings import run_findings

    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "runs.sqlite")
        run_id = ensure_demo_run(store)
        found = run_findings(store, run_id) if run_id else []
        store.close()
    return max(found, key=lambda finding: finding.strength).sentence if found else None


def cpu_parts(repo: Path, runs: int) -> None:
    """Print the median and range of the CPU seconds of each part over ``runs`` fresh processes."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("SUMMBIAS_NO_DEMO", None)
    samples: dict[str, list[float]] = {}
    shipped = set()
    loads = []
    for _ in range(runs):
        loads.append(os.getloadavg()[0])
        done = subprocess.run([str(repo / ".venv" / "bin" / "python"), "-c", CPU_PROBE], cwd=repo, env=env,
                              capture_output=True, text=True, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        shipped.add(result["shipped findings used"])
        for label, seconds in result["parts"].items():
            samples.setdefault(label, []).append(seconds)
    print(f"CPU seconds, {runs} fresh processes (load average {min(loads):.1f}–{max(loads):.1f}; shipped demo "
          f"findings used: {'yes' if shipped == {True} else 'no' if shipped == {False} else 'sometimes'}):")
    for label, values in samples.items():
        print(f"  {label}: median {statistics.median(values):.2f} s (range {min(values):.2f}–{max(values):.2f})")


def one_start(browser, sentence: str | None, repo: Path) -> dict[str, float]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PORT": str(port), "SUMMBIAS_STORE": str(Path(folder) / "runs.sqlite")}
        env.pop("SUMMBIAS_NO_DEMO", None)
        started = time.perf_counter()
        server = subprocess.Popen(["./scripts/start.sh", "--server.address", "127.0.0.1"], cwd=repo, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            while True:
                try:
                    if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                        break
                except OSError:  # the server is not listening yet
                    time.sleep(0.02)
            times["server listening"] = time.perf_counter() - started
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(url, timeout=120_000)
            times["page loaded"] = time.perf_counter() - started
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
    repo = args.repo.resolve()
    sentence = first_finding()
    print(f"checkout: {repo}; first finding expected: {sentence!r}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        for run in range(args.runs):
            load = os.getloadavg()[0]
            times = one_start(browser, sentence, repo)
            print(f"run {run + 1} (load average {load:.1f}): "
                  + "; ".join(f"start command -> {label}: {seconds:.1f} s" for label, seconds in times.items()))
        browser.close()
    sys.stdout.flush()
    cpu_parts(repo, max(args.runs, 3))


if __name__ == "__main__":
    main()
