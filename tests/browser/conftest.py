"""A real Streamlit server and Debian's Chromium for browser tests (never `playwright install`)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = REPO / "artifacts" / "screenshots"


def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args():
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is not installed: `apt-get install -y --no-install-recommends chromium`")
    return {"executable_path": CHROMIUM, "args": [
        "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]}


@pytest.fixture(scope="session")
def browser_context_args():
    return {"viewport": {"width": 1280, "height": 1500}}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running_app(state: Path, *, port: int | None = None, args: tuple[str, ...] = (), warm: bool = True, **env: str):
    """Run `streamlit run app.py` on a free port (or ``port``) with its store and cache in ``state``, ``env`` added
    and ``args`` after Streamlit's own; yield its URL and stop it by PID at the end. ``warm``: run app.py once
    through the script health check before any browser comes, as scripts/start.sh does (not a plain `streamlit
    run`)."""
    port = port or _free_port()
    env = {**os.environ, "SUMMBIAS_STORE": str(state / "runs.sqlite"), "SUMMBIAS_CACHE": str(state / "c.sqlite"),
           "HF_HUB_OFFLINE": "1", **env}
    log = (state / "streamlit.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.address",
         "127.0.0.1", "--server.port", str(port), "--server.fileWatcherType", "none",
         "--browser.gatherUsageStats", "false", *args],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.3)
    else:
        _stop(process)
        pytest.fail(f"streamlit did not start; log: {(state / 'streamlit.log').read_text()[-2000:]}")
    # As scripts/start.sh does: one run of app.py before any browser comes, so the first page only draws.
    if warm:
        with contextlib.suppress(OSError):
            urllib.request.urlopen(f"{url}/_stcore/script-health-check", timeout=120).read()
    try:
        yield url
    finally:
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    """Stop the app and every process it started (its own session's group): SIGTERM, then SIGKILL after 20 s (a
    loaded machine once left an app and its workers running past a test's end)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=20)


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """The app with its own store and cache, shared by the browser tests of a session."""
    with running_app(tmp_path_factory.mktemp("app-state")) as url:
        yield url


@pytest.fixture
def screenshot(page):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(name: str, target=None) -> Path:
        path = ARTIFACTS / f"{name}.png"
        (target or page).screenshot(path=str(path), full_page=True)
        return path

    return take


def wait_for_app(page, timeout: float = 60_000) -> None:
    """Wait until the script has finished running (Streamlit marks the app element)."""
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=timeout)


def pick_option(page, box, option_index: int) -> str:
    """Open the Streamlit selectbox ``box`` and pick its ``option_index``-th option; return the option's text.

    Retried: a rerun under way when the box is clicked can close its list before the options are drawn."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    for _ in range(4):
        wait_for_app(page)
        box.click()
        option = page.get_by_role("option").nth(option_index)
        try:
            option.wait_for(state="visible", timeout=10_000)
            text = option.inner_text()
            option.click(timeout=10_000)
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
            continue
        wait_for_app(page)
        return text
    raise AssertionError(f"the selectbox never showed option {option_index}")


def set_number(page, field, value: str, shown) -> None:
    """Type ``value`` into the Streamlit number input ``field`` and wait until the locator ``shown`` is visible.

    Retried: under a loaded machine a rerun still under way when the value is typed can draw the widget again with
    its old value, so the page keeps showing what the old value gave (the review test saw "114 inputs" twice in a
    full suite, never alone)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    for _ in range(3):
        wait_for_app(page)
        field.fill(value)
        field.press("Enter")
        try:
            shown.wait_for(state="visible", timeout=30_000)
        except PlaywrightTimeoutError:
            continue
        wait_for_app(page)
        return
    raise AssertionError(f"the page never showed what {value!r} gives")


def open_page(page, name: str) -> None:
    """Click a page in the sidebar navigation and wait for it to render (a URL would start a new session)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click()
    wait_for_app(page)


def upload_article(page, app_url: str, path: Path) -> None:
    """Open the app and upload one article on the Corpus page."""
    from playwright.sync_api import expect

    # A second session opens while the first one's audit runs (test_two_sessions): on a loaded 2-core machine with
    # other tests beside it, the page's own load once took longer than Playwright's default 30 s.
    page.goto(app_url, timeout=120_000)
    wait_for_app(page)
    open_page(page, "Corpus")  # the app opens on the Overview once a run (the demo run) exists
    page.get_by_text("Upload a file", exact=True).click()
    wait_for_app(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(page.get_by_text("1 document ready: 1 article")).to_be_visible(timeout=30_000)


# Records every error an export button shows (it shows one for 5 s when its file could not be made), so a download
# that never comes fails with the app's reason instead of a bare timeout.
_RECORD_DOWNLOAD_ERRORS = """() => {
  window.__downloadErrors = [];
  new MutationObserver(() => {
    for (const node of document.querySelectorAll('[data-testid=stDownloadButtonError]')) {
      if (!window.__downloadErrors.includes(node.innerText)) window.__downloadErrors.push(node.innerText);
    }
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def download_export(page, label: str, target: Path, timeout: float = 300_000) -> Path:
    """Click the Runs page's export button ``label`` once the page has settled and save the file to ``target``.

    The export is made on the click, which takes longer than Playwright's 30 s default on a loaded machine."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    expect_settled_runs_page(page)
    page.evaluate(_RECORD_DOWNLOAD_ERRORS)
    try:
        with page.expect_download(timeout=timeout) as download:
            page.get_by_role("button", name=label).click()
    except PlaywrightTimeoutError:
        errors = page.evaluate("window.__downloadErrors")
        pytest.fail(f"{label}: no download in {timeout / 1000:.0f} s; the button showed {errors or 'no error'}")
    download.value.save_as(target)
    return target


def expect_settled_runs_page(page) -> None:
    """The Runs page has drawn its exports and its comparison and its script has stopped (a click during a rerun is
    lost)."""
    from playwright.sync_api import expect

    expect(page.get_by_text("Compare runs: summarizers side by side")).to_be_visible(timeout=60_000)
    wait_for_app(page)
