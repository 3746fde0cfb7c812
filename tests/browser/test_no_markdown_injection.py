"""No page fetches or renders anything that users or models wrote as Markdown or HTML. A local HTTP server records
every request; images, links, raw HTML and Streamlit directives that point at it are put into a run name, a
summarizer name, document ids, titles, texts, summaries, a value, a failure message, a CSV column name and an upload's
file name. Every page is opened in Chromium: the server must receive nothing, the page must hold no image or link to
it, and the strings must be shown literally. Screenshots go to artifacts/screenshots/markdown-*.png."""

from __future__ import annotations

import http.server
import threading

import pytest
from playwright.sync_api import expect

from pages.render import WORD_JOINER
from tests.browser.conftest import open_page, running_app, wait_for_app
from tests.test_app_markdown_injection import ARTICLE, build_hostile_store, payload


class Trap(http.server.BaseHTTPRequestHandler):
    """Answers every request with an empty 200 and records its path."""

    requests: list[str] = []

    def do_GET(self):  # noqa: N802 (the name http.server asks for)
        Trap.requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_POST = do_GET  # noqa: N815

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def trap():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trap)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def hostile(trap, tmp_path_factory):
    """The app on a store with the hostile runs (and no demo run), plus the hostile strings."""
    state = tmp_path_factory.mktemp("hostile-app")
    names = build_hostile_store(state / "runs.sqlite", trap)
    with running_app(state, SUMMBIAS_NO_DEMO="1") as url:
        yield url, names


def upload_hostile_csv(page, trap: str, names: dict[str, str], folder) -> tuple[str, str]:
    """Upload a CSV whose column name, id, title and text carry the payload; return the column and the file name."""
    column = "body " + payload(trap, "column")
    file_name = "hostile :red[file] [f](x).csv"
    path = folder / file_name
    path.write_text(f'"{column}",id,title\n"{ARTICLE.format(payload=names["summary"])}","{names["doc_id"]}",'
                    f'"{names["title"]}"\n')
    page.get_by_text("Upload a file", exact=True).click()
    wait_for_app(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(page.get_by_role("combobox", name="Text column")).to_be_visible(timeout=30_000)
    wait_for_app(page)
    return column, file_name


def choose(page, selectbox, option: str) -> None:
    """Pick the first option of a Streamlit selectbox whose label contains ``option``."""
    selectbox.click()
    page.get_by_role("option").filter(has_text=option).first.click()
    wait_for_app(page)


def assert_plain(page, trap: str, shown: list[str], name: str, screenshot) -> None:
    """The page shows every string of ``shown`` literally (as text, or as a selectbox's value), has no image or link
    to the trap, and nothing was fetched from it."""
    wait_for_app(page)
    main = page.get_by_test_id("stMain")
    for text in shown:  # the accessibility tree: visible text and the values shown in selectboxes
        for _ in range(30):
            if text in main.aria_snapshot().replace(WORD_JOINER, ""):  # invisible; it keeps URLs from being linked
                break
            page.wait_for_timeout(1_000)
        else:
            pytest.fail(f"{name}: not shown literally: {text}\n{main.aria_snapshot()[-3000:]}")
    port = trap.rsplit(":", 1)[1]
    # The Overview's "see the evidence" links go to the app's own Compare page; their query string holds the
    # (URL-encoded) hostile ids, which is not a link to the trap.
    embedded = page.locator(f"img[src*='{port}'], a[href*='{port}']:not([href^='#']):not([href^='compare?']), "
                            "a[href^=mailto], iframe, object, embed")
    assert embedded.count() == 0, (name, embedded.evaluate_all("nodes => nodes.map(n => n.outerHTML.slice(0, 300))"))
    screenshot(f"markdown-{name}")
    assert Trap.requests == [], (name, Trap.requests)


def test_no_page_fetches_or_renders_markdown_from_users_or_models(page, hostile, trap, tmp_path, screenshot):
    url, names = hostile
    page.goto(url)
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Overview")).to_be_visible(timeout=60_000)
    page.locator(".st-key-overview_findings [data-testid=stPageLink]").first.wait_for(timeout=60_000)
    assert_plain(page, trap, [names["run"], names["summarizer"]], "overview", screenshot)  # the newest run

    open_page(page, "Corpus")
    column, file_name = upload_hostile_csv(page, trap, names, tmp_path)
    expect(page.get_by_text("1 document ready: 1 article")).to_be_visible(timeout=30_000)
    assert_plain(page, trap, [column, f"{names['doc_id']} — {names['title']}", names["summary"]], "corpus",
                 screenshot)

    open_page(page, "Audit")
    page.get_by_test_id("stMain").get_by_test_id("stMultiSelect").first.click()
    page.get_by_role("option", name="race", exact=True).click()
    page.keyboard.press("Escape")
    wait_for_app(page)
    page.get_by_text("race settings").click()
    note = ("Pronouns may change: a race swap draws a gender for each person whose gender the text does not show "
            "(Steen & Markert §10 draw every person's; see docs/fidelity.md).")
    assert_plain(page, trap, [file_name, note], "audit", screenshot)

    open_page(page, "Compare")
    page.get_by_text("Input texts with the perturbation's swaps highlighted").click()
    assert_plain(page, trap, [names["summarizer"], names["summary"], payload(trap, "text")], "compare", screenshot)

    open_page(page, "Fightin' Words")
    choose(page, page.get_by_test_id("stMain").get_by_test_id("stSelectbox").nth(1), "sum ")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    # The tiny hostile run has few content words: show every word, so the drill-down shows the hostile summaries.
    page.get_by_test_id("stMain").get_by_text("Content words only", exact=True).click()
    wait_for_app(page)
    assert_plain(page, trap, [names["summarizer"], "texts contain “"], "fightin-words", screenshot)

    open_page(page, "Metrics")  # it opens on the family of the run's finding (issue 29); inclusion is undefined here,
    page.get_by_test_id("stMain").get_by_text("Inclusion", exact=True).click()  # so it shows no chart but its reason
    wait_for_app(page)
    assert_plain(page, trap, [names["reason"], payload(trap, "correction")], "metrics", screenshot)
    page.get_by_test_id("stMain").get_by_text("Perspective fairness", exact=True).click()  # one family at a time
    wait_for_app(page)
    shares = page.locator(".js-plotly-plot").filter(has_text="value shares")  # drawn after the BUR chart
    expect(shares).to_be_visible(timeout=60_000)
    bars = shares.inner_text()
    assert f"{names['summarizer']} · " in bars and ": value shares" in bars and names["value"] in bars

    open_page(page, "Runs")
    assert_plain(page, trap, [names["run"]], "runs", screenshot)
    choose(page, page.get_by_test_id("stMain").get_by_test_id("stSelectbox").first, names["failed_run"])
    expect(page.get_by_test_id("stAlert")).to_contain_text("summarizer crashed on", timeout=30_000)
    assert_plain(page, trap, [names["failed_run"], names["failure"]], "runs-failed", screenshot)

    open_page(page, "Summarize one document")
    upload_hostile_csv(page, trap, names, tmp_path)
    page.get_by_role("button", name="Summarize", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Summary by lead-3")).to_be_visible(timeout=60_000)
    assert_plain(page, trap, [f"{names['doc_id']} — {names['title']}"], "summarize", screenshot)
    page.wait_for_timeout(2_000)  # anything loaded lazily would have been requested by now
    assert Trap.requests == []
