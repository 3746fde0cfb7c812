"""Who may see and change which run on a shared server (issue 30, Deliver 1): the policy, the owners the store keeps,
and the app's Runs page under sign-in (AppTest's ``user``) — before this, any visitor could delete any run."""

from __future__ import annotations

import sqlite3

import pytest
from streamlit.testing.v1 import AppTest

from bias_core.runs.access import AccessPolicy, is_loopback, listening_problem
from bias_core.runs.run_info import Owner, RunInfo
from bias_core.runs.store import RunStore
from bias_core.safety.errors import InputError
from tests.conftest import REPO

ALICE, BOB, CAROL = Owner("alice", "alice@example.org"), Owner("bob", "bob@example.org"), Owner("carol", "carol")
AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "x" * 40, "client_id": "summbias",
        "client_secret": "s", "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}


def run_of(owner: Owner | None, run_id: str = "r1") -> RunInfo:
    return RunInfo(id=run_id, name=None, created=0.0, updated=0.0, status="interrupted", config={}, config_hash="h",
                   environment={}, model_revisions={}, stage=None, progress_done=0, progress_total=0, message=None,
                   owner=owner)


# The policy ------------------------------------------------------------------------------------------------------

def test_with_sign_in_off_everyone_sees_and_changes_every_run():
    policy = AccessPolicy()
    assert policy.may_see(None, run_of(ALICE)) and policy.may_change(None, run_of(ALICE))
    assert policy.refusal(BOB, run_of(ALICE), "delete") is None


def test_with_sign_in_on_only_the_owner_or_an_admin_changes_a_run():
    policy = AccessPolicy(sign_in=True, admins=frozenset({"carol"}))
    alices = run_of(ALICE)
    assert policy.may_change(ALICE, alices) and policy.may_change(CAROL, alices)
    assert not policy.may_change(BOB, alices) and not policy.may_change(None, alices)
    assert policy.refusal(BOB, alices, "delete") == ("Only the run's owner or an admin may delete it: run r1 is "
                                                     "alice@example.org's.")
    assert policy.refusal(None, alices, "resume") == "Sign in to resume a run."


def test_the_operators_runs_are_seen_by_everyone_signed_in_and_changed_by_admins_only():
    operators = run_of(None)
    for visible in ("all", "own"):
        policy = AccessPolicy(sign_in=True, admins=frozenset({"carol"}), runs_visible=visible)
        assert policy.may_see(BOB, operators) and not policy.may_change(BOB, operators)
        assert policy.may_change(CAROL, operators) and not policy.may_see(None, operators)
    assert "the operator's" in AccessPolicy(sign_in=True).refusal(BOB, operators, "rename")


def test_private_runs_are_seen_by_their_owner_and_admins_only():
    policy = AccessPolicy(sign_in=True, admins=frozenset({"carol"}), runs_visible="own")
    runs = [run_of(ALICE, "a"), run_of(BOB, "b"), run_of(None, "demo")]
    assert [run.id for run in policy.visible(BOB, runs)] == ["b", "demo"]
    assert [run.id for run in policy.visible(CAROL, runs)] == ["a", "b", "demo"]
    assert policy.visible(None, runs) == []
    assert [run.id for run in AccessPolicy(sign_in=True).visible(BOB, runs)] == ["a", "b", "demo"]


@pytest.mark.parametrize(("settings", "words"), [
    ({"admin": ["carol"]}, "unknown keys admin"),
    ({"admins": "carol"}, "admins must be a list"),
    ({"admins": [""]}, "admins must be a list"),
    ({"runs_visible": "mine"}, "runs_visible must be \"all\" or \"own\""),
    ({"network_without_sign_in": "yes"}, "network_without_sign_in must be true or false"),
])
def test_a_setting_that_does_not_read_is_one_line_never_a_silent_default(settings, words):
    with pytest.raises(InputError, match=words):
        AccessPolicy.from_settings(settings, sign_in=True)


def test_the_server_serves_beyond_this_machine_only_with_sign_in_or_the_operators_word():
    assert all(is_loopback(address) for address in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"))
    assert not any(is_loopback(address) for address in ("", None, "0.0.0.0", "::", "10.0.0.5", "example.org"))
    assert listening_problem("127.0.0.1", AccessPolicy()) is None
    problem = listening_problem("0.0.0.0", AccessPolicy())
    assert problem and "anyone on the network could see and delete every run" in problem
    assert "every network address" in listening_problem("", AccessPolicy())
    assert listening_problem("0.0.0.0", AccessPolicy(sign_in=True)) is None
    assert listening_problem("0.0.0.0", AccessPolicy(network_without_sign_in=True)) is None


# The store --------------------------------------------------------------------------------------------------------

CONFIG = {"summarizers": [{"name": "lead-3"}], "perturbations": [{"name": "gender"}]}


def test_a_run_records_its_owner_and_starting_the_same_audit_never_takes_over_anothers_run(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    alices, created = store.resume_or_create_run(CONFIG, "same-audit", {}, owner=ALICE)
    assert created and store.get_run(alices).owner == ALICE
    bobs, created = store.resume_or_create_run(CONFIG, "same-audit", {}, owner=BOB)
    assert created and bobs != alices and store.get_run(bobs).owner == BOB
    assert store.resume_or_create_run(CONFIG, "same-audit", {}, owner=ALICE) == (alices, False)
    operators, created = store.resume_or_create_run(CONFIG, "same-audit", {})  # the command line: any unfinished run
    assert not created and operators in (alices, bobs)
    assert {run.id: run.owner for run in store.list_runs()} == {alices: ALICE, bobs: BOB}


def test_renaming_and_deleting_a_run_keep_and_remove_its_owner(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id, _ = store.resume_or_create_run(CONFIG, "h", {}, name="first", owner=ALICE)
    store.rename_run(run_id, "second")
    assert store.get_run(run_id).name == "second" and store.get_run(run_id).owner == ALICE
    store.delete_run(run_id)
    with sqlite3.connect(tmp_path / "runs.sqlite") as connection:
        assert connection.execute("SELECT COUNT(*) FROM owners").fetchone()[0] == 0


def test_a_store_from_before_owners_reads_with_no_owner_and_gains_the_table_when_written(tmp_path):
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    run_id = store.create_run(CONFIG, "h", {}, name="old")
    store.close()
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE owners")
        connection.execute("PRAGMA user_version = 2")
    read_only = RunStore(path, read_only=True)
    assert read_only.get_run(run_id).owner is None and [run.id for run in read_only.list_runs()] == [run_id]
    read_only.close()
    store = RunStore(path)
    store.set_owner(run_id, ALICE)
    assert store.get_run(run_id).owner == ALICE


# The app ----------------------------------------------------------------------------------------------------------

def signed_in_app(user: Owner | None, *, visible: str = "all") -> AppTest:
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.secrets["auth"] = AUTH
    at.secrets["summbias"] = {"admins": ["carol"], "runs_visible": visible}
    at.user = ({"is_logged_in": True, "sub": user.subject, "email": user.label} if user else {"is_logged_in": False})
    return at


def alices_stopped_run(tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("SUMMBIAS_STORE", str(tmp_path / "runs.sqlite"))
    store = RunStore(tmp_path / "runs.sqlite")
    run_id, _ = store.resume_or_create_run(CONFIG, "h", {}, name="alice's audit", owner=ALICE)
    store.update_run(run_id, status="interrupted")
    store.close()
    return run_id


def test_a_visitor_who_is_not_signed_in_sees_only_the_sign_in_button(tmp_path, monkeypatch):
    alices_stopped_run(tmp_path, monkeypatch)
    at = signed_in_app(None)
    at.run()
    assert not at.exception and [button.label for button in at.button] == ["Sign in"]
    assert "alice" not in str([element.value for element in at.main.children.values()
                               if hasattr(element, "value")])


def test_bob_cannot_delete_rename_or_resume_alices_run_even_when_pressing_the_buttons(tmp_path, monkeypatch):
    run_id = alices_stopped_run(tmp_path, monkeypatch)
    at = signed_in_app(BOB)
    at.query_params["run"] = run_id
    at.run()
    at.switch_page("pages/runs.py").run()
    assert not at.exception
    assert at.dataframe[0].value["owner"].tolist() == ["alice@example.org"]
    assert at.button(key="runs_delete").disabled and at.button(key="runs_rename").disabled
    assert at.button(key=f"resume_{run_id}").disabled and at.checkbox(key="runs_confirm_delete").disabled
    assert "Only the run's owner or an admin may resume it" in " ".join(c.value for c in at.caption)
    store = RunStore(tmp_path / "runs.sqlite", read_only=True)
    assert store.has_run(run_id) and store.get_run(run_id).name == "alice's audit"


def test_alice_and_an_admin_may_delete_alices_run(tmp_path, monkeypatch):
    for person in (ALICE, CAROL):
        run_id = alices_stopped_run(tmp_path, monkeypatch)
        at = signed_in_app(person)
        at.query_params["run"] = run_id
        at.run()
        at.switch_page("pages/runs.py").run()
        assert not at.button(key="runs_rename").disabled
        at.checkbox(key="runs_confirm_delete").check().run()
        at.button(key="runs_delete").click().run()
        assert not at.exception and not RunStore(tmp_path / "runs.sqlite", read_only=True).has_run(run_id)


def test_with_private_runs_bob_is_never_shown_alices_run(tmp_path, monkeypatch):
    run_id = alices_stopped_run(tmp_path, monkeypatch)
    at = signed_in_app(BOB, visible="own")
    at.query_params["run"] = run_id
    at.run()
    at.switch_page("pages/runs.py").run()
    assert not at.exception and run_id not in str([box.options for box in at.selectbox])
    assert [info.value for info in at.info] == [("No runs yet. Start an audit on the Audit page (or with "
                                                 "`python -m bias_core audit --config …`).")]
    at.switch_page("pages/overview.py").run()
    assert any(f"The run {run_id} named in the link is not in the run store" in w.value.replace("\\", "")
               for w in at.warning)


def test_the_command_lines_run_list_names_each_runs_owner(tmp_path, capsys):
    from bias_core.cli import main

    store = RunStore(tmp_path / "runs.sqlite")
    alices, _ = store.resume_or_create_run(CONFIG, "h", {}, owner=ALICE)
    operators = store.create_run(CONFIG, "h2", {})
    store.close()
    assert main(["runs", "--store", str(tmp_path / "runs.sqlite"), "--json"]) == 0
    import json

    owners = {row["id"]: row["owner"] for row in json.loads(capsys.readouterr().out)}
    assert owners == {alices: {"subject": "alice", "label": "alice@example.org"}, operators: None}
