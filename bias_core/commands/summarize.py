"""`summarize`: run one summarizer over inputs.jsonl (or any documents file) into summaries.jsonl."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bias_core.commands.params import parse_params
from bias_core.commands.progress_lines import ProgressLines
from bias_core.common.records import Input
from bias_core.documents.corpus import load_documents
from bias_core.documents.decoding import DEFAULT_MAX_BYTES, DEFAULT_MAX_MB, check_size, megabytes
from bias_core.documents.record_files import read_inputs, write_jsonl
from bias_core.safety.errors import InputError, stage
from bias_core.safety.validation import BATCH_SIZE, MAX_MB, ParamError, check_option, check_output_path, check_summaries
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from bias_core.summarize.base import check_summarizer


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "summarize", help="summarize inputs with one summarizer",
        description="Summarize every input with one summarizer. --inputs takes inputs.jsonl (from `perturb`) or a "
                    "documents file (.txt, folder, .zip, .jsonl of documents, .csv), summarized unchanged.")
    parser.add_argument("--summarizer", required=True,
                        help="lead-3, random-3, textrank, lexrank, topic, sexist, smollm2, hf:<id or path>, "
                             "openai:<model>")
    parser.add_argument("--param", action="append", metavar="KEY=VALUE",
                        help="summarizer parameter, repeatable (e.g. base_url=http://127.0.0.1:8000/v1)")
    parser.add_argument("--inputs", required=True, type=Path, help="inputs.jsonl or a documents file")
    parser.add_argument("--out", required=True, type=Path, help="where to write summaries.jsonl")
    parser.add_argument("--cache", type=Path, help="summary cache file (default: the user cache folder)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    parser.add_argument("--batch-size", type=int, help="inputs per model call")
    parser.add_argument("--max-mb", type=float, default=DEFAULT_MAX_MB,
                        help="refuse inputs or document files larger than this many MB of 1,000,000 bytes (default: "
                             "%(default)g)")
    parser.set_defaults(func=run)


def read_any_inputs(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Input]:
    """inputs.jsonl records if the file holds them, otherwise documents turned into identity inputs; either is
    refused over ``max_bytes`` (``--max-mb``) with the documents' one-line message, before it is read."""
    if path.suffix.lower() == ".jsonl" and path.is_file():
        check_size(str(path), path.stat().st_size, max_bytes)
        with path.open(encoding="utf-8", errors="replace") as stream:
            first = next((line for line in stream if line.strip()), "")
        if '"original_id"' in first:
            return read_inputs(path, max_bytes)
    return [Input.from_document(document) for document in load_documents(path, max_bytes=max_bytes)]


def run(args: argparse.Namespace) -> int:
    # Every option is checked before any input is read or any model is loaded.
    check_output_path(args.out)
    if args.batch_size is not None:
        check_option("--batch-size", BATCH_SIZE, args.batch_size)
    check_option("--max-mb", MAX_MB, args.max_mb)
    params = parse_params(args.param)
    check_summarizer(args.summarizer, **params)
    inputs = read_any_inputs(args.inputs, megabytes(args.max_mb))
    try:  # inputs × 1 summarizer, the audit's bound on summaries (issue 30), before the model is loaded
        check_summaries(len(inputs), 1, "split the inputs into smaller files")
    except ParamError as error:
        raise InputError(str(args.inputs), str(error)) from None
    summarizer = get_summarizer(args.summarizer, **params)
    cache = None if args.no_cache else SummaryCache(args.cache)

    lines = None if sys.stderr.isatty() else ProgressLines(sys.stderr, unit="inputs")

    def progress(done: int, total: int) -> None:
        if lines is not None:  # a log: a plain line every few seconds, not one line of carriage returns
            lines.update(summarizer.name, done, total)
        else:
            print(f"\r{summarizer.name}: {done}/{total} inputs", end="\033[K", file=sys.stderr, flush=True)

    def wait(text: str | None) -> None:
        if lines is not None:
            lines.wait(text)
        elif text is not None:
            print(f"\r{summarizer.name}: waiting: {text}", end="\033[K", file=sys.stderr, flush=True)

    with stage(f"summarize {args.inputs} with {summarizer.name}"):
        report = summarize_inputs(summarizer, inputs, cache=cache, batch_size=args.batch_size, on_progress=progress,
                                  on_wait=wait)
    if lines is None:
        print(file=sys.stderr)
    write_jsonl(args.out, report.summaries)
    print(f"wrote {len(report.summaries)} summaries to {args.out} ({report.cache_hits} from cache, "
          f"{report.computed} computed, {report.seconds:.1f} s)", file=sys.stderr)
    if report.failures:
        for failure in report.failures[:5]:
            print(f"failed: {failure.input_id}: {failure.error}", file=sys.stderr)
        raise InputError(str(args.inputs), f"{len(report.failures)} of {len(inputs)} inputs could not be summarized",
                         hint="the successful summaries were written and cached; run again to retry the rest")
    return 0
