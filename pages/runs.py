"""Runs: the history from the store — open a run, follow or resume it, compare two runs, delete, export."""

from __future__ import annotations

import datetime
import hashlib

import pandas as pd
import streamlit as st

from bias_core.audit import AuditConfig
from bias_core.export import html_report, measures_csv, run_json, summaries_csv
from bias_core.findings import judge, primary_estimate, semantics
from bias_core.launch import launch_audit
from bias_core.store import RunInfo
from pages.common import run_store
from pages.render import md_escape

st.title("Runs")
st.caption("Every audit is stored with its configuration, seeds, package versions and model revisions. Open one to "
           "inspect it on the Compare, Fightin' Words and Metrics pages, or export it.")

store = run_store()
runs = store.list_runs()
if not runs:
    st.info("No runs yet. Start an audit on the Audit page (or with `python -m bias_core audit --config …`).")
    st.stop()


def describe(run: RunInfo) -> str:
    when = datetime.datetime.fromtimestamp(run.created).strftime("%Y-%m-%d %H:%M")
    return f"{run.name or 'unnamed'} · {when} · {run.status} · {run.id}"


table = pd.DataFrame([{
    "run": run.id, "name": run.name or "", "status": run.status,
    "progress": f"{run.progress_done}/{run.progress_total}",
    "created": datetime.datetime.fromtimestamp(run.created).strftime("%Y-%m-%d %H:%M:%S"),
    "summarizers": ", ".join(s["name"] for s in run.config.get("summarizers", [])),
    "perturbations": ", ".join(p["name"] for p in run.config.get("perturbations", [])),
} for run in runs])
st.dataframe(table, hide_index=True, width="stretch")

ids = [run.id for run in runs]
current = st.session_state.get("run_id")
chosen = st.selectbox("Run", ids, index=ids.index(current) if current in ids else 0,
                      format_func=lambda run_id: describe(store.get_run(run_id)), key="runs_selected")
st.session_state["run_id"] = chosen


@st.fragment(run_every=2.0)
def run_status(run_id: str) -> None:
    """Progress read from the store, refreshed every 2 s while the worker runs."""
    info = store.get_run(run_id)
    st.progress(info.progress,
                text=md_escape(f"{info.stage or info.status}: {info.progress_done}/{info.progress_total}"))
    if info.status == "running" and not info.worker_alive:
        st.warning("The process running this audit has stopped. Completed summaries are kept; resume to finish.")
        if st.button("Resume this run", key=f"resume_{run_id}"):
            config = AuditConfig.from_stored(info.config)
            launch_audit(config, store.documents(run_id), store)
            st.rerun()
    elif info.message:
        (st.error if info.status == "failed" else st.info)(md_escape(info.message))


info = store.get_run(chosen)
st.subheader(md_escape(info.name or info.id))
run_status(chosen)
with st.expander("Configuration, seeds, versions and model revisions"):
    st.json({"config": info.config, "environment": info.environment, "model_revisions": info.model_revisions})

st.markdown("**Export**")
columns = st.columns(4)
columns[0].download_button("Report (HTML)", html_report(store, chosen), file_name=f"summbias-{chosen}.html",
                           mime="text/html", key="export_html")
columns[1].download_button("Everything (JSON)", run_json(store, chosen), file_name=f"summbias-{chosen}.json",
                           mime="application/json", key="export_json")
columns[2].download_button("Measures (CSV)", measures_csv(store.measures(chosen)),
                           file_name=f"summbias-{chosen}-measures.csv", mime="text/csv", key="export_measures")
columns[3].download_button("Summaries (CSV)", summaries_csv(store, chosen),
                           file_name=f"summbias-{chosen}-summaries.csv", mime="text/csv", key="export_summaries")

@st.cache_data(max_entries=64)
def corpus_fingerprint(run_id: str, updated: float) -> str:
    """A hash of the run's documents (ids and texts), so runs on the same corpus can be found whatever its name."""
    digest = hashlib.sha256()
    for document in sorted(store.documents(run_id), key=lambda d: d.id):
        digest.update(f"{len(document.id)}:{document.id}{len(document.text)}:{document.text}".encode())
    return digest.hexdigest()


def cell(result, results) -> str:
    """One leaderboard cell: the primary estimate, its 95% interval, n and the verdict of ``judge``."""
    value, low, high = primary_estimate(result)
    verdict = judge(result, results)
    estimate = "—" if value is None else f"{value:.3f}"
    interval = "" if low is None or high is None else f" [{low:.3f}, {high:.3f}]"
    favoured = f", favours {verdict.favoured}" if verdict.significant and verdict.favoured else ""
    return f"{estimate}{interval} · n = {result.n} · {verdict.status}{favoured}"


st.markdown("**Compare runs: summarizers side by side**")
st.caption("Runs on the same corpus (the same documents) and perturbation, one column per run × summarizer: the "
           "estimate with its 95% interval, n and the verdict of the one significance rule (the Overview's).")
mine = store.measures(chosen)
perturbations = sorted({r.perturbation for r in mine if r.perturbation and r.perturbation != "identity"})
if not perturbations:
    st.caption("This run has no measure results on a perturbation yet.")
else:
    perturbation = st.selectbox("Perturbation", perturbations, key="runs_board_perturbation")
    fingerprint = corpus_fingerprint(chosen, info.updated)
    candidates = [run.id for run in runs if corpus_fingerprint(run.id, run.updated) == fingerprint
                  and any(r.perturbation == perturbation for r in store.measures(run.id))]
    board_runs = st.multiselect("Runs on the same corpus", candidates, default=candidates,
                                format_func=lambda run_id: describe(store.get_run(run_id)), key="runs_board_runs")
    board: dict[str, dict[str, str]] = {}
    for run_id in board_runs:
        results = store.measures(run_id)
        label = store.get_run(run_id).name or run_id
        for result in results:
            if result.perturbation != perturbation or result.measure == "fightin_words" or result.ci_kind == "s":
                continue
            column = f"{label} · {result.summarizer}" if len(board_runs) > 1 else str(result.summarizer)
            board.setdefault(semantics(result.measure).name or result.measure, {})[column] = cell(result, results)
    if board:
        st.dataframe(pd.DataFrame.from_dict(board, orient="index").rename_axis("measure").reset_index(),
                     hide_index=True, width="stretch", key="runs_board")
    else:
        st.caption("None of the chosen runs has results on this perturbation.")

with st.expander("Delete this run"):
    confirm = st.checkbox("I understand that the run and all its records are deleted", key="runs_confirm_delete")
    if st.button("Delete run", disabled=not confirm, key="runs_delete"):
        store.delete_run(chosen)
        st.session_state.pop("run_id", None)
        st.success(f"Deleted run {md_escape(chosen)}.")
        st.rerun()
