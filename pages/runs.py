"""Runs: the history from the store — open a run, follow or resume it, compare two runs, delete, export."""

from __future__ import annotations

import datetime
import hashlib

import pandas as pd
import streamlit as st

from bias_core.runs.config import AuditConfig
from bias_core.runs.launch import delete_run, launch_audit
from bias_core.runs.run_info import RunInfo, damaged_run_message
from bias_core.safety.errors import BiasCoreError
from bias_core.views.export import html_report, measures_csv, run_json, summaries_csv
from bias_core.views.leaderboard import MISSING_NOTE, leaderboard
from pages.common import run_store, select_run
from pages.parts import access, workspace
from pages.render import for_display, md_escape

access.through_app()  # a deep link served before app.py ever ran goes through it (sign-in, sidebar, cookie)

st.title("Runs")
st.caption("Every audit is stored with its configuration, seeds, package versions and model revisions. Open one to "
           "inspect it on the Compare, Fightin' Words and Metrics pages, or export it.")

rules, person = access.current()
if not rules.sign_in:  # said plainly where it matters: this page can delete any run
    st.caption("Sign-in is off: everyone who reaches this server can see, resume, rename and delete every run. "
               "To share the server with a team, configure sign-in (README, \"Deploying for a team\").")
elif rules.runs_visible == "own" and not rules.is_admin(person):
    st.caption("You see your own runs and the operator's; the operator keeps the others' runs private.")
try:
    store = run_store()
    every_run = store.list_runs()
    runs = access.visible(every_run)
except BiasCoreError as error:  # a store that cannot be opened: its one line, where its path came from
    st.error(md_escape(f"The run store could not be opened. {error}"))
    st.stop()
workspace.forget_runs({run.id for run in every_run})  # an upload goes with its run, however it was deleted
if not runs:
    st.info("No runs yet. Start an audit on the Audit page (or with `python -m bias_core audit --config …`).")
    st.stop()


@st.cache_data(show_spinner=False, max_entries=256)
def run_tokens(run_id: str, updated: float) -> str:
    """The tokens the endpoints reported for a run's summaries, per summarizer ("openai:m: 1.2 M prompt tokens, 80 k
    completion tokens"); empty for a run of local models only."""
    return "; ".join(f"{u.summarizer}: {u.describe()}" + (f" (+{u.from_cache:,} from the cache)" if u.from_cache else "")
                     for u in run_store().token_usage(run_id))


def describe(run: RunInfo) -> str:
    when = datetime.datetime.fromtimestamp(run.created).strftime("%Y-%m-%d %H:%M") if run.created else "?"
    return f"{run.name or 'unnamed'} · {when} · {run.shown_status} · {run.id}"


table = pd.DataFrame([{
    "run": run.id, "name": run.name or "", "status": run.shown_status,
    "progress": f"{run.progress_done}/{run.progress_total}",
    "created": datetime.datetime.fromtimestamp(run.created).strftime("%Y-%m-%d %H:%M:%S") if run.created else "",
    "summarizers": ", ".join(s["name"] for s in run.config.get("summarizers", [])),
    "perturbations": ", ".join(p["name"] for p in run.config.get("perturbations", [])),
    "tokens": run_tokens(run.id, run.updated),
    **({"owner": run.owner.label if run.owner else "operator"} if rules.sign_in else {}),
} for run in runs])
st.dataframe(table, hide_index=True, width="stretch")

by_id = {run.id: run for run in runs}
ids = list(by_id)
current = st.query_params.get("run") or st.session_state.get("run_id")
chosen = st.selectbox("Run", ids, index=ids.index(current) if current in ids else 0,
                      format_func=lambda run_id: describe(by_id[run_id]), key="runs_selected")
select_run(chosen)


@st.fragment(run_every=2.0)
def run_status(run_id: str) -> None:
    """Progress read from the store, refreshed every 2 s while the worker runs."""
    try:
        info = store.get_run(run_id)
    except BiasCoreError as error:  # deleted or damaged since the page was drawn
        st.error(md_escape(error))
        return
    st.progress(info.progress,
                text=md_escape(f"{info.stage or info.status}: {info.progress_done}/{info.progress_total}"))
    if info.resumable:  # its worker was killed or stopped (liveness: process id and start time, RunInfo)
        st.warning(md_escape(info.message) if info.status == "interrupted" and info.message else
                   "The process running this audit has stopped. Completed summaries are kept; resume to finish.")
        not_theirs = access.refusal(info, "resume")
        if not_theirs:
            st.caption(md_escape(not_theirs))
        # Decided again on the owner read above when the button is pressed: a disabled button can still be sent.
        if st.button("Resume this run", key=f"resume_{run_id}", disabled=bool(not_theirs)) and not not_theirs:
            try:
                config = AuditConfig.from_stored(info.config)
            except (KeyError, TypeError, ValueError) as error:  # a config of the wrong shape: one line, no resume
                st.error(md_escape(damaged_run_message(run_id, f"its stored configuration has no usable {error}")))
                return
            try:
                launch_audit(config, store.documents(run_id), store, resume_run=run_id, owner=info.owner)
            except BiasCoreError as error:  # an invalid stored config: the launcher has marked the run failed
                st.error(md_escape(str(error)))
            else:
                st.rerun()
    elif info.message:
        (st.error if info.status == "failed" else st.info)(md_escape(info.message))


@st.cache_data(max_entries=64)
def corpus_fingerprint(run_id: str, updated: float) -> str:
    """A hash of the run's documents (ids, texts, unit values), so runs on the same corpus are found whatever the
    corpus was called."""
    digest = hashlib.sha256()
    for document in sorted(store.documents(run_id), key=lambda d: d.id):
        values = [str(unit.value) for unit in document.units or []]
        for part in (document.id, document.full_text, *values):
            digest.update(f"{len(part)}:{part}".encode())
    return digest.hexdigest()


def run_details(chosen: str, info: RunInfo) -> None:
    """The configuration, the exports and the leaderboard of a run that reads."""
    with st.expander("Configuration, seeds, versions and model revisions"):
        st.json({"config": info.config, "environment": info.environment, "model_revisions": info.model_revisions})

    st.markdown("**Export**")
    columns = st.columns(4)
    # Each export is made when its button is clicked (Streamlit runs the callable then, on its own thread; the
    # store's connection allows that): made eagerly, the four of them cost every rerun of this page seconds on the
    # demo run. A click must not rerun the page (on_click="ignore"): the rerun registers new callables and drops the
    # clicked one, and when the rerun ends before the request is served (a loaded machine) the download never comes.
    exports = (("Report (HTML)", lambda run_id=chosen: html_report(store, run_id), ".html", "text/html", "html"),
               ("Everything (JSON)", lambda run_id=chosen: run_json(store, run_id), ".json", "application/json",
                "json"),
               ("Measures (CSV)", lambda run_id=chosen: measures_csv(store.measures(run_id)), "-measures.csv",
                "text/csv", "measures"),
               ("Summaries (CSV)", lambda run_id=chosen: summaries_csv(store, run_id), "-summaries.csv", "text/csv",
                "summaries"))
    for column, (label, make, suffix, mime, key) in zip(columns, exports):
        column.download_button(label, make, file_name=f"summbias-{chosen}{suffix}", mime=mime, key=f"export_{key}",
                               on_click="ignore")

    st.markdown("**Compare runs: summarizers side by side**")
    st.caption("Runs on the same corpus (the same documents) and perturbation. Per measure, every run × summarizer "
               "with its estimate, 95% interval, n and the verdict of the one significance rule (the Overview's), "
               "closest to no bias first.")
    mine = store.measures(chosen)
    perturbations = sorted({r.perturbation for r in mine if r.perturbation and r.perturbation != "identity"})
    if not perturbations:
        st.caption("This run has no measure results on a perturbation yet.")
    else:
        perturbation = st.selectbox("Perturbation", perturbations, key="runs_board_perturbation")
        fingerprint = corpus_fingerprint(chosen, info.updated)
        candidates = [run.id for run in runs if not run.damaged
                      and corpus_fingerprint(run.id, run.updated) == fingerprint
                      and any(r.perturbation == perturbation for r in store.measures(run.id))]
        board_runs = st.multiselect("Runs on the same corpus", candidates, default=candidates,
                                    format_func=lambda run_id: describe(by_id[run_id]), key="runs_board_runs")
        rows = leaderboard([(by_id[run_id].name or run_id, store.measures(run_id)) for run_id in board_runs],
                           perturbation)
        if rows:
            board = pd.DataFrame(rows)
            if len(board_runs) == 1:
                board = board.drop(columns="run")
            st.dataframe(for_display(board), hide_index=True, width="stretch", key="runs_board")
            st.caption(md_escape(MISSING_NOTE))
        else:
            st.caption("None of the chosen runs has results on this perturbation.")


info = by_id[chosen]
st.subheader(md_escape(info.name or info.id))
if info.damaged:  # nothing of it can be shown or exported: say so and offer Delete below; the other runs work
    st.error(md_escape(info.message))
else:
    run_status(chosen)
    run_details(chosen, info)


# Who may change the run is decided on its owner as stored when this script runs, so when a button is pressed too
# (a disabled button can still be sent by a browser).
not_yours = access.refusal(info, "rename or delete")
if not info.damaged:
    with st.expander("Rename this run"):
        if not_yours:
            st.caption(md_escape(not_yours))
        new_name = st.text_input("Name", value=info.name or "", max_chars=200, key=f"runs_rename_{chosen}",
                                 disabled=bool(not_yours))
        if st.button("Rename", key="runs_rename", disabled=bool(not_yours)) and not not_yours:
            try:
                store.rename_run(chosen, new_name.strip())
            except BiasCoreError as error:  # deleted meanwhile, or a read-only store
                st.error(md_escape(error))
            else:
                st.rerun()

with st.expander("Delete this run"):
    if not_yours:
        st.caption(md_escape(not_yours))
    confirm = st.checkbox("I understand that the run and all its records are deleted", key="runs_confirm_delete",
                          disabled=bool(not_yours))
    if st.button("Delete run", disabled=not confirm or bool(not_yours), key="runs_delete") and not not_yours:
        try:
            delete_run(store, chosen)  # its records, config, log and (unless another run uses it) corpus file
        except BiasCoreError as error:
            st.error(md_escape(error))
        else:
            st.session_state.pop("run_id", None)
            st.success(f"Deleted run {md_escape(chosen)}.")
            st.rerun()
