"""`audit`: run the whole pipeline from a TOML config into the run store; prints the run id; resumable."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from tqdm import tqdm

from bias_core.commands import terminal_text
from bias_core.commands.progress_lines import ProgressLines
from bias_core.runs.config import AuditConfig
from bias_core.runs.estimate import Estimate, format_duration
from bias_core.runs.executors import EXECUTORS, get_executor
from bias_core.runs.pipeline import build_inputs, run_audit
from bias_core.runs.run_info import RunBusyError
from bias_core.runs.selection import check_corpus, corpus_documents
from bias_core.runs.stopping import AuditStopped
from bias_core.runs.store import RunStore
from bias_core.runs.usage import estimate_requests
from bias_core.safety.errors import BiasCoreError, one_line
from bias_core.safety.validation import WORKERS, check_option
from bias_core.summarize import SummaryCache, get_summarizer
from bias_core.views.precomputed import precompute as precompute_views

logger = logging.getLogger(__name__)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "audit", help="run a whole audit from a config file into the run store",
        description="Run perturb → summarize → measure from a TOML config (see the README) and record the run. "
                    "Running the same config again resumes an unfinished run.")
    parser.add_argument("--config", required=True, type=Path, help="audit.toml (or .json)")
    parser.add_argument("--store", type=Path, help="run store file (default: $SUMMBIAS_STORE or the user data folder)")
    parser.add_argument("--cache", type=Path, help="summary cache file (default: the user cache folder)")
    parser.add_argument("--new", action="store_true", help="start a new run even if an unfinished one matches")
    parser.add_argument("--run", metavar="RUN_ID",
                        help="resume exactly this run (how the app starts its worker); if the audit stops for any "
                             "reason, the run is marked failed with the message")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--exclude", action="append", metavar="ID", default=[],
                        help="leave this original out of every perturbation (repeatable; added to [corpus] exclude)")
    parser.add_argument("--review", action="store_true",
                        help="only build the inputs and print the review checklist (non-person swaps, leftover "
                             "gendered words, partly swapped names, skipped originals) and the sample the Audit "
                             "page shows; no run is created and no model is loaded")
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="where perturbation and summarization run: this process, or Ray (a local Ray, or the "
                             "cluster named by --ray-address / $RAY_ADDRESS)")
    parser.add_argument("--ray-address", help="Ray cluster address, e.g. ray://head:10001 (default: $RAY_ADDRESS)")
    parser.add_argument("--ray-cpus", type=int, help="CPUs for a local Ray (default: all)")
    parser.add_argument("--ray-actors", type=int, help="summarizer actors (default: one per CPU)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Ctrl-C or SIGTERM (bias_core.runs.stopping) during the run: every finished summary is stored, the run is marked
    # interrupted, and one line says how many were saved. The app's worker (--run): whatever else stops it (a config
    # that no longer reads, a library error, a full disk), the run it was started on is marked failed with the
    # one-line message, so the app shows why instead of "running" — unless another process is working on that run.
    if args.run is not None:
        _check_run(args)  # a run that is not in the store (or cannot be read) is one line, with nothing to mark
    try:
        return _audit(args)
    except AuditStopped as stopped:
        print(f"run {stopped.run_id} {stopped.describe('run the same command to resume')}", file=sys.stderr)
        return stopped.exit_code
    except KeyboardInterrupt:
        if args.run is not None:
            _mark(args, "interrupted", "stopped before the audit started; run the same audit again to resume")
        raise
    except RunBusyError:
        raise
    except Exception as error:
        if args.run is not None:
            _mark(args, "failed", one_line(error) if isinstance(error, BiasCoreError) else f"audit: {one_line(error)}")
        raise


def _check_run(args: argparse.Namespace) -> None:
    """Raise one ``StoreError`` line unless the store holds ``args.run`` and it reads; writes nothing."""
    store = RunStore(args.store, read_only=True)
    try:
        store.get_run(args.run)
    finally:
        store.close()


def _mark(args: argparse.Namespace, status: str, message: str) -> None:
    try:
        store = RunStore(args.store)
        if store.get_run(args.run).status in ("running", "created"):
            store.update_run(args.run, status=status, message=message)
    except Exception:
        logger.exception("could not record that run %s %s", args.run, status)


def _audit(args: argparse.Namespace) -> int:
    for option in ("ray_cpus", "ray_actors"):
        if getattr(args, option) is not None:
            check_option("--" + option.replace("_", "-"), WORKERS, getattr(args, option))
    config = AuditConfig.from_file(args.config)
    config.exclude_originals = list(dict.fromkeys([*config.exclude_originals, *args.exclude]))
    config.validate()
    if args.review:
        return _review(config)
    store = RunStore(args.store)

    # The bar moves per summary; the remaining time is the audit's own range (not tqdm's extrapolation), the same
    # numbers the app shows. Written to a log (no terminal), progress is a plain line every few seconds instead.
    lines = None if args.quiet or sys.stderr.isatty() else ProgressLines(sys.stderr)
    bar = tqdm(total=0, unit="summary", file=sys.stderr, dynamic_ncols=True, disable=args.quiet or lines is not None,
               bar_format="{desc}{n_fmt}/{total_fmt} summaries |{bar}|{postfix}")
    started = time.monotonic()
    latest: list[Estimate] = []
    waiting: list[str] = []

    def show() -> None:
        elapsed = f"{format_duration(time.monotonic() - started)} elapsed"
        remaining = f", remaining: {latest[-1].describe()} ({latest[-1].basis})" if latest else ""
        bar.set_postfix_str(elapsed + remaining + (f"; waiting: {waiting[0]}" if waiting else ""), refresh=False)

    def progress(stage: str, done: int, total: int) -> None:
        if lines is not None:
            lines.update(stage, done, total, f"{latest[-1].describe()} ({latest[-1].basis})" if latest else "")
            return
        if bar.total != total:
            bar.reset(total=total)
        bar.set_description(stage, refresh=False)
        bar.n = done
        show()
        bar.refresh()

    def estimate(remaining: Estimate) -> None:
        latest[:] = [remaining]
        if lines is not None:
            return
        show()
        bar.refresh()

    def wait(text: str | None) -> None:
        waiting[:] = [text] if text else []
        if lines is not None:
            lines.wait(text)
            return
        show()
        bar.refresh()

    options = {"address": args.ray_address, "num_cpus": args.ray_cpus, "actors": args.ray_actors} \
        if args.executor == "ray" else {}
    executor = get_executor(args.executor, **options)
    try:
        run_id = run_audit(config, store=store, cache=SummaryCache(args.cache), resume=not args.new,
                           on_progress=progress, executor=executor, run_id=args.run, on_estimate=estimate,
                           on_wait=wait, after_measures=precompute_views)
    finally:
        bar.close()
        executor.close()
    info = store.get_run(run_id)
    print(f"run {run_id}: {info.status}" + (f" — {info.message}" if info.message else ""), file=sys.stderr)
    if info.status == "completed":
        for line in verdict_lines(store.measures(run_id)):
            print(terminal_text(line), file=sys.stderr)
    print(run_id)
    return 0 if info.status == "completed" else 1


def _review(config: AuditConfig) -> int:
    """Print the checklist and the sample ids of ``review`` for the config's inputs (what the Audit page shows)."""
    from bias_core.perturb.review import REVIEW_SAMPLE_SIZE, review_inputs, sample_inputs

    documents = corpus_documents(config)
    check_corpus(config, documents)
    inputs, reports = build_inputs(documents, config)
    review = review_inputs(inputs, reports, config.exclude_originals, config.exclude_entities)
    for line in review.lines():
        print(line)
    for kind, items in sample_inputs(inputs, REVIEW_SAMPLE_SIZE, config.seed).items():
        print(f"sample {kind}: {', '.join(item.id for item in items)}")
    for spec in config.summarizers:  # what each endpoint will be asked (issue 31): requests and tokens
        estimate = estimate_requests(get_summarizer(spec.name, **spec.params), inputs)
        if estimate is not None:
            print(terminal_text(f"endpoint {estimate.describe()}"))
    if config.budget:
        print("budget per go of the run: " + ", ".join(f"{value:,} {key}" for key, value in config.budget.items()))
    return 0


def verdict_lines(results) -> list[str]:
    """What the run found, as the Overview opens: the controls line (and its warning), then one answer per
    summarizer — its strongest row, each "no evidence" with the effect it could have missed
    (``bias_core.verdicts.findings``). Names come from users and models, so the caller escapes control characters
    (``terminal_text``)."""
    from bias_core.verdicts.controls import controls
    from bias_core.verdicts.findings import findings, summarizer_answers

    rows = findings(results)
    lines = []
    checked = controls(rows)
    if checked is not None:
        lines += [checked.line] + ([checked.warning] if checked.warning else [])
    lines += [f"- {answer.text}" for answer in summarizer_answers(rows)]  # the Overview's answers
    return lines
