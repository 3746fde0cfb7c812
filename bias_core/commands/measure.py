"""`python -m bias_core measure`: every bias measure from inputs.jsonl and summaries.jsonl (INTERFACES.md).

Writes measures.json, ``{"results": [...]}``, one entry per measure, summarizer, perturbation and CI kind (a result
with d and s intervals appears twice). Without ``--measure`` every measure the data supports is computed.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging

from bias_core.common import stats
from bias_core.documents.decoding import DEFAULT_MAX_BYTES, DEFAULT_MAX_MB, megabytes, text_file
from bias_core.documents.record_files import read_inputs, read_summaries, write_measures
from bias_core.measures import (
    MARKER_LEXICON_NAMES,
    MEASURE_NAMES,
    MeasureOptions,
    check_lexicon_paths,
    check_paired_identifiers,
    compute_measures,
)
from bias_core.measures.fairsumm_ngram import FAIRSUMM_NGRAM, check_nltk_data
from bias_core.measures.lexical_bias import read_bias_labels
from bias_core.measures.lexicons import DEFAULT_PAIRED_IDENTIFIERS, PAIRED_IDENTIFIER_CHOICES, load_politicians
from bias_core.measures.perspective_scores import MATCHINGS
from bias_core.safety.errors import InputError, stage
from bias_core.safety.validation import MAX_MB, RESAMPLES, SEED, check_option, check_output_path

logger = logging.getLogger(__name__)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "measure", help="compute bias measures with bootstrap CIs from inputs and summaries",
        description="Compute the bias measures of METHODS §3-§5 per summarizer and perturbation. Psycholinguistic "
                    "features of politician summaries use Empath and NRC categories as stand-ins for LIWC.")
    parser.add_argument("--inputs", required=True, help="inputs.jsonl (output of perturb)")
    parser.add_argument("--summaries", required=True, help="summaries.jsonl (output of summarize, or imported)")
    parser.add_argument("--out", required=True, help="measures.json to write")
    parser.add_argument("--measure", action="append", choices=MEASURE_NAMES, metavar="NAME",
                        help=f"measure to compute (repeatable; default: all the data supports): "
                             f"{', '.join(MEASURE_NAMES)}")
    parser.add_argument("--bootstrap", type=int, default=stats.DEFAULT_RESAMPLES, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument("--hallucination-genders", metavar="CSV",
                        help="lookup table for hallucinated names: CSV with columns name, gender (checked before "
                             "census first names)")
    parser.add_argument("--bias-labels", metavar="JSONL",
                        help="per-sentence bias labels for mbic/sfpi: {id, sentences, labels} or BASIL-style "
                             "{id, text, spans}; without it an approximate lexicon labeller is used")
    parser.add_argument("--politicians", metavar="CSV",
                        help="politicians table (name, party, gender, office, years) replacing the shipped one")
    parser.add_argument("--perspective-target", default="ratio",
                        help="fairness target: ratio, equal, or JSON like '{\"pos\": 0.5, \"neg\": 0.5}'")
    parser.add_argument("--perspective-matching", action="append", choices=MATCHINGS,
                        help="how summary tokens are matched to values (repeatable): ngram (spaCy lemmas, the "
                             "default), fairsumm-ngram (the FairSumm authors' NLTK pipeline, reproduces their Table "
                             "10; needs NLTK data), embedding (MiniLM)")
    parser.add_argument("--by-year", action="store_true", help="politician features: test each year separately")
    parser.add_argument("--paired-identifiers", default=DEFAULT_PAIRED_IDENTIFIERS, metavar="CHOICE|TSV",
                        help=f"Fightin' Words: which paired identifiers become one token: "
                             f"{', '.join(PAIRED_IDENTIFIER_CHOICES)} (default {DEFAULT_PAIRED_IDENTIFIERS}: Steen & "
                             f"Markert's Table 10 pairs, husband and wife apart) or a male<TAB>female file")
    parser.add_argument("--include-degenerate", action="store_true",
                        help="keep degenerate summaries (empty, separator runs, repetition loops, prompt echoes) "
                             "in the measures; "
                             "by default they are left out and counted")
    parser.add_argument("--steen-markert-rules", default="summbias", choices=("summbias", "authors"),
                        help="Steen & Markert's measures: summbias's rules (default) or those of the authors' released "
                             "code (entity matching, word-list tokenisation, anonymiser, exact ties; docs/fidelity.md)")
    parser.add_argument("--max-mb", type=float, default=DEFAULT_MAX_MB,
                        help="refuse an inputs, summaries, --hallucination-genders or --bias-labels file larger than "
                             "this many MB of 1,000,000 bytes (default: %(default)g)")
    parser.add_argument("--lexicon", action="append", metavar="NAME=PATH",
                        help=f"politician features: your own marker list instead of the shipped one (repeatable); "
                             f"NAME is one of {', '.join(MARKER_LEXICON_NAMES)}")
    parser.set_defaults(func=run)


def read_gender_lookup(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, str]:
    """Read a name → gender CSV (columns name, gender); genders must be male, female or unknown. A file that is not
    UTF-8 text or not CSV, not a regular file or over ``max_bytes`` is one ``InputError`` line naming it."""
    reader = csv.DictReader(text_file(path, max_bytes))
    try:
        if not {"name", "gender"} <= set(reader.fieldnames or []):
            raise InputError(path, "needs the columns name and gender")
        lookup = {}
        for line, row in enumerate(reader, start=2):
            gender = (row["gender"] or "").strip().lower()
            if gender not in ("male", "female", "unknown"):
                raise InputError(path, f"gender '{row['gender']}' must be male, female or unknown", row=line)
            lookup[(row["name"] or "").strip()] = gender
    except csv.Error as error:
        raise InputError(path, f"is not a readable CSV file ({error})", row=reader.line_num) from None
    return lookup


def lexicon_options(values: list[str] | None) -> dict[str, str]:
    """Parse repeated ``--lexicon NAME=PATH`` into name → path, checked (known name, existing file, entries)."""
    paths: dict[str, str] = {}
    for value in values or []:
        name, sep, path = value.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise InputError("--lexicon", f"'{value}' is not NAME=PATH",
                             hint=f"e.g. --lexicon hedges=my_hedges.txt; names: {', '.join(MARKER_LEXICON_NAMES)}")
        if name.strip() in paths:
            raise InputError("--lexicon", f"'{name.strip()}' is given twice", hint="give each lexicon once")
        paths[name.strip()] = path.strip()
    return check_lexicon_paths(paths, "--lexicon")


def _target(text: str):
    if text in ("ratio", "equal"):
        return text
    problem = InputError("--perspective-target", f"'{text}' is not ratio, equal or a JSON object of shares")
    try:
        mapping = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser recurses
        raise problem from None
    if not isinstance(mapping, dict) or not all(isinstance(v, (int, float)) for v in mapping.values()):
        raise problem
    return {str(key): float(value) for key, value in mapping.items()}


def run(args: argparse.Namespace) -> int:
    # Every option is checked before any file is read or any measure computed.
    check_output_path(args.out)
    check_option("--bootstrap", RESAMPLES, args.bootstrap)
    check_option("--seed", SEED, args.seed)
    check_option("--max-mb", MAX_MB, args.max_mb)
    max_bytes = megabytes(args.max_mb)
    target = _target(args.perspective_target)
    paired = check_paired_identifiers(args.paired_identifiers, "--paired-identifiers")
    lexicons = lexicon_options(args.lexicon)
    if args.politicians:  # read now, so a damaged table is refused before any measure, not only by politician runs
        load_politicians(args.politicians)
    if FAIRSUMM_NGRAM in (args.perspective_matching or ()):
        check_nltk_data(f"--perspective-matching {FAIRSUMM_NGRAM}")
    lookup = read_gender_lookup(args.hallucination_genders, max_bytes) if args.hallucination_genders else {}
    labels = read_bias_labels(args.bias_labels, max_bytes=max_bytes) if args.bias_labels else None
    inputs = read_inputs(args.inputs, max_bytes)
    summaries = read_summaries(args.summaries, max_bytes)
    known = {item.id for item in inputs}
    orphans = [summary.input_id for summary in summaries if summary.input_id not in known]
    if len(orphans) == len(summaries):
        raise InputError(args.summaries, "no summary refers to an input of " + str(args.inputs),
                         hint="check that input_id values match the ids in the inputs file")
    if orphans:
        logger.warning("%d summaries refer to inputs not in %s; ignored (first: %s)", len(orphans), args.inputs,
                       orphans[0])
    options = MeasureOptions(
        n_resamples=args.bootstrap, seed=args.seed,
        hallucination_lookup=lookup, bias_labels=labels,
        politicians_path=args.politicians, perspective_target=target,
        perspective_matching=tuple(args.perspective_matching or ("ngram",)), by_year=args.by_year,
        include_degenerate=args.include_degenerate, paired_identifiers=paired, lexicon_paths=lexicons,
        steen_markert_rules=args.steen_markert_rules)
    with stage(f"measure {args.summaries}"):
        results = compute_measures(inputs, summaries, args.measure, options)
    write_measures(args.out, results)
    logger.info("wrote %d results to %s", len(results), args.out)
    return 0
