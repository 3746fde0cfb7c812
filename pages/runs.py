"""Runs: the history from the store — open a run, follow or resume it, compare two runs, delete, export."""

from __future__ import annotations

import datetime

import pandas as pd
import streamlit as st

from bias_core.audit import AuditConfig
from bias_core.export import html_report, measures_csv, run_json, summaries_csv
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

others = [run_id for run_id in ids if run_id != chosen]
if others:
    st.markdown("**Compare with another run**")
    other = st.selectbox("Second run", others, format_func=lambda run_id: describe(store.get_run(run_id)),
                         key="runs_compare")
    def keyed(run_id: str) -> dict:
        return {(r.measure, r.perturbation, r.summarizer, r.ci_kind): r for r in store.measures(run_id)}
    mine, theirs = keyed(chosen), keyed(other)
    rows = []
    for key in sorted(mine.keys() | theirs.keys(), key=str):
        a, b = mine.get(key), theirs.get(key)
        rows.append({"measure": key[0], "perturbation": key[1], "summarizer": key[2], "CI kind": key[3],
                     "this run": None if a is None else a.to_dict()["value"],
                     "this CI": None if a is None else f"[{a.ci_low}, {a.ci_high}]",
                     "other run": None if b is None else b.to_dict()["value"],
                     "other CI": None if b is None else f"[{b.ci_low}, {b.ci_high}]"})
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    else:
        st.caption("Neither run has measure results yet.")

with st.expander("Delete this run"):
    confirm = st.checkbox("I understand that the run and all its records are deleted", key="runs_confirm_delete")
    if st.button("Delete run", disabled=not confirm, key="runs_delete"):
        store.delete_run(chosen)
        st.session_state.pop("run_id", None)
        st.success(f"Deleted run {md_escape(chosen)}.")
        st.rerun()
