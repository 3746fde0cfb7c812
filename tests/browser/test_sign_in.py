"""A server a team shares (issue 30): two people sign in through a real OpenID Connect provider on 127.0.0.1
(``oidc-provider-mock``, started here), and the second cannot delete, rename or resume the first one's run — nor,
when the operator keeps runs private, see it."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from bias_core.runs.run_info import Owner
from bias_core.runs.store import RunStore
from tests.browser.conftest import _free_port, _stop, open_page, running_app, wait_for_app

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    """An OpenID Connect provider on 127.0.0.1 that signs in whoever types a subject on its form."""
    port = _free_port()
    log = (tmp_path_factory.mktemp("oidc") / "provider.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--port", str(port)], stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        with contextlib.suppress(OSError):
            urllib.request.urlopen(f"{url}/.well-known/openid-configuration", timeout=2).read()
            break
        time.sleep(0.3)
    else:
        _stop(process)
        pytest.fail("the OpenID Connect provider did not start")
    yield url
    _stop(process)


def seeded_store(state: Path) -> str:
    """A store with one stopped run that alice launched (so it offers Resume); returns its id."""
    store = RunStore(state / "runs.sqlite")
    config = {"name": "alice's audit", "summarizers": [{"name": "lead-3"}], "perturbations": [{"name": "gender"}]}
    run_id, _ = store.resume_or_create_run(config, "alice-config", {}, name="alice's audit",
                                           owner=Owner("alice", "alice"))
    store.update_run(run_id, status="interrupted", message="Stopped by its owner; resume to finish.")
    store.close()
    return run_id


@contextlib.contextmanager
def shared_app(state: Path, provider: str, runs_visible: str):
    port = _free_port()
    secrets = state / "secrets.toml"
    secrets.write_text(f"""
[auth]
redirect_uri = "http://127.0.0.1:{port}/oauth2callback"
cookie_secret = "a-long-random-secret-for-this-test-only-0123456789"
client_id = "summbias"
client_secret = "not-checked-by-the-mock"
server_metadata_url = "{provider}/.well-known/openid-configuration"

[summbias]
admins = ["carol"]
runs_visible = "{runs_visible}"
""")
    # Not warmed up: the first request is a deep link to a page, served before app.py ever ran (Why 7).
    with running_app(state, port=port, args=("--secrets.files", str(secrets)), warm=False) as url:
        yield url


def sign_in(page, url: str, subject: str) -> None:
    """Open the app, sign in at the provider as ``subject`` and come back signed in."""
    page.goto(url, timeout=120_000)
    wait_for_app(page)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/oauth2/authorize**", timeout=60_000)
    page.fill("input[name=sub]", subject)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{url}/**", timeout=60_000)
    wait_for_app(page)
    expect(page.get_by_text(f"Signed in as {subject}")).to_be_visible(timeout=60_000)


def open_run(page, url: str, run_id: str) -> None:
    page.goto(f"{url}/runs?run={run_id}", timeout=120_000)
    wait_for_app(page)


def test_a_visitor_must_sign_in_and_bob_cannot_delete_rename_or_resume_alices_run(browser, provider, tmp_path):
    run_id = seeded_store(tmp_path)
    with shared_app(tmp_path, provider, "all") as url:
        stranger = browser.new_context()
        page = stranger.new_page()
        page.goto(f"{url}/runs?run={run_id}", timeout=120_000)  # the server's first request: a deep link
        wait_for_app(page)
        expect(page.get_by_role("button", name="Sign in")).to_be_visible()
        assert "alice" not in page.inner_text("body")  # nothing of the runs before sign-in
        page.goto(url, timeout=120_000)
        wait_for_app(page)
        expect(page.get_by_role("button", name="Sign in")).to_be_visible()
        assert "alice" not in page.inner_text("body")
        stranger.close()

        bob = browser.new_context()
        page = bob.new_page()
        sign_in(page, url, "bob")
        open_run(page, url, run_id)
        expect(page.get_by_text("alice's audit").first).to_be_visible()  # runs_visible = "all": bob sees it
        expect(page.get_by_text(f"Only the run's owner or an admin may resume it: run {run_id} is alice's.")
               ).to_be_visible()
        expect(page.get_by_role("button", name="Resume this run")).to_be_disabled()
        page.get_by_text("Delete this run").click()
        expect(page.get_by_role("button", name="Delete run")).to_be_disabled()
        expect(page.get_by_test_id("stCheckbox").get_by_role("checkbox")).to_be_disabled()
        page.get_by_text("Rename this run").click()
        expect(page.get_by_role("button", name="Rename")).to_be_disabled()
        bob.close()

        alice = browser.new_context()
        page = alice.new_page()
        sign_in(page, url, "alice")
        open_run(page, url, run_id)
        expect(page.get_by_role("button", name="Resume this run")).to_be_enabled()
        page.get_by_text("Rename this run").click()
        field = page.get_by_label("Name")
        field.fill("alice renamed it")
        field.press("Enter")
        page.get_by_role("button", name="Rename").click()
        wait_for_app(page)
        expect(page.get_by_role("heading", name="alice renamed it")).to_be_visible(timeout=30_000)
        page.get_by_text("Delete this run").click()
        page.get_by_text("I understand that the run and all its records are deleted").click()
        expect(page.get_by_role("button", name="Delete run")).to_be_enabled()  # hers to delete; not deleted here
        alice.close()
    store = RunStore(tmp_path / "runs.sqlite", read_only=True)
    run = store.get_run(run_id)
    assert run.name == "alice renamed it" and run.owner == Owner("alice", "alice")


def test_with_private_runs_bob_neither_lists_nor_opens_alices_run(browser, provider, tmp_path):
    run_id = seeded_store(tmp_path)
    with shared_app(tmp_path, provider, "own") as url:
        bob = browser.new_context()
        page = bob.new_page()
        sign_in(page, url, "bob")
        open_run(page, url, run_id)
        body = page.inner_text("body")
        assert run_id not in body and "alice" not in body
        page.goto(f"{url}/compare?run={run_id}", timeout=120_000)  # a deep link to a result page
        wait_for_app(page)
        expect(page.get_by_text(f"The run {run_id} named in the link is not in the run store")).to_be_visible(
            timeout=60_000)
        assert "alice's audit" not in page.inner_text("body")
        bob.close()

        alice = browser.new_context()
        page = alice.new_page()
        sign_in(page, url, "alice")
        open_page(page, "Runs")
        expect(page.get_by_text("alice's audit").first).to_be_visible()
        alice.close()


def test_the_first_deep_link_after_a_plain_streamlit_run_has_the_sidebar_and_the_browser_cookie(browser, tmp_path):
    """Before, Streamlit ran /runs without app.py until app.py had run once: no navigation, no cookie (Why 7)."""
    with running_app(tmp_path, warm=False) as url:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{url}/runs", timeout=120_000)
        wait_for_app(page)
        expect(page.get_by_test_id("stSidebarNav")).to_be_visible(timeout=60_000)
        expect(page.get_by_role("heading", name="Runs")).to_be_visible()
        expect(page.get_by_text("Sign-in is off: everyone who reaches this server can see")).to_be_visible()
        deadline = time.time() + 30
        while time.time() < deadline and "summbias_browser" not in {c["name"] for c in context.cookies()}:
            time.sleep(0.2)
        assert "summbias_browser" in {c["name"] for c in context.cookies()}
        context.close()


def test_a_server_open_to_the_network_without_sign_in_serves_nothing_until_the_operator_says_so(browser, tmp_path):
    """Sign-in off and listening on every interface: one line, no page, no run (Why 1); the operator's explicit
    network_without_sign_in = true serves the app as before."""
    with running_app(tmp_path, args=("--server.address", "0.0.0.0")) as url:
        page = browser.new_page()
        page.goto(f"{url}/runs", timeout=120_000)
        wait_for_app(page)
        expect(page.get_by_text("This server listens on address 0.0.0.0 without sign-in, so anyone on the network "
                                "could see and delete every run: it serves nothing.")).to_be_visible(timeout=60_000)
        assert page.get_by_test_id("stSidebarNav").count() == 0 and "Delete this run" not in page.inner_text("body")
        page.close()
    secrets = tmp_path / "secrets.toml"
    secrets.write_text("[summbias]\nnetwork_without_sign_in = true\n")
    with running_app(tmp_path, args=("--server.address", "0.0.0.0", "--secrets.files", str(secrets))) as url:
        page = browser.new_page()
        page.goto(f"{url}/runs", timeout=120_000)
        wait_for_app(page)
        expect(page.get_by_text("Sign-in is off: everyone who reaches this server can see")).to_be_visible(
            timeout=60_000)
        page.close()
