"""`perturb`: build the inputs of one perturbation from a documents file (INTERFACES.md "Command line"; METHODS §1).

Writes ``--out`` (inputs.jsonl) and two files beside it: ``<out>.skips.json`` (the skip report: originals skipped and
why, unattributed pronouns, entities without a first name) and ``<out>.run.json`` (perturbation, configuration,
seed and the name lists drawn from). The skip report's summary goes to stderr, and so does a progress bar over the
documents (``--quiet`` hides it).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bias_core.documents.corpus import CsvColumns, load_documents
from bias_core.documents.record_files import write_jsonl
from bias_core.perturb import PERTURBATIONS, get_perturbation
from bias_core.perturb.gender import AGREEMENT_SCOPES
from bias_core.perturb.sentiment import VALUE_SOURCES, unknown_value_column
from bias_core.runs.selection import check_perturbation_inputs, documents_for
from bias_core.safety.errors import InputError
from bias_core.safety.validation import NAMES, SAMPLES, UNITS_PER_INPUT, ParamError, check_option, check_output_path

# Command-line option → config field; an option given for a perturbation whose config lacks the field is an error.
OPTION_FIELDS = {
    "samples": "samples",
    "seed": "seed",
    "controls": "controls",
    "pair": "pairs",
    "ratios": "ratios",
    "value_column": "value_column",
    "value_source": "value_source",
    "focus_value": "focus_value",
    "units_per_input": "units_per_input",
    "perspective_template": "perspective_template",
    "content_words": "content_words",
    "agreement": "agreement",
    "replace_last_names": "replace_last_names",
    "top_n_names": "top_n_names",
    "name_source": "name_source",
    "first_name_threshold": "first_name_threshold",
    "last_name_threshold": "last_name_threshold",
    "repeats": "repeats",
}
# The count options, checked against the maxima of their config fields (bias_core.safety.validation) under the option's
# own name, before any document is read: "command line: --samples = 100000000 is out of range: …".
COUNT_OPTIONS = {"samples": SAMPLES, "repeats": SAMPLES, "units_per_input": UNITS_PER_INPUT, "top_n_names": NAMES}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "perturb", help="build perturbed inputs (gender, race, politician, sentiment, identity) from documents",
        description="Build the inputs of one perturbation (METHODS §1) from a documents file (.txt, folder, .zip, "
                    ".jsonl, .csv). Writes inputs.jsonl plus <out>.skips.json and <out>.run.json beside it.")
    parser.add_argument("--kind", required=True, choices=sorted(PERTURBATIONS), help="the perturbation")
    parser.add_argument("--documents", required=True, type=Path, help="documents file or folder")
    parser.add_argument("--out", required=True, type=Path, help="where to write inputs.jsonl")
    parser.add_argument("--samples", type=int,
                        help="name draws per original, each a pair of inputs (gender, race; default 10 → 20 "
                             "inputs); draws per ratio (sentiment; default 5)")
    parser.add_argument("--seed", type=int, help="random seed (default 0)")
    parser.add_argument("--controls", action="store_true", default=None,
                        help="also build within-group controls: quadruples with roles (gender, race)")
    parser.add_argument("--pair", action="append", metavar="'E1=E2'",
                        help="politician pair, repeatable (default 'Donald Trump=Joe Biden', Zhou & Tan Table 1)")
    parser.add_argument("--ratios", type=_ratios, metavar="R,R,…", help="focus-value shares (default 0.2,0.5,0.8)")
    parser.add_argument("--value-column", help="unit field or CSV column holding the value (sentiment)")
    parser.add_argument("--value-source", choices=VALUE_SOURCES,
                        help="where unit values come from (default label; stars; VADER rules)")
    parser.add_argument("--focus-value", help="the value whose share --ratios sets (default: first value)")
    parser.add_argument("--units-per-input", type=int, help="units per perspective input (default 10)")
    parser.add_argument("--perspective-template", help="Zhang et al. Table 11 template name (e.g. yelp)")
    parser.add_argument("--agreement", choices=AGREEMENT_SCOPES,
                        help="gender, race: what a swap rewrites: coherent (default: names, pronouns, titles and every "
                             "gendered noun tied to a swapped person: son, both men, congressman …) or "
                             "names-pronouns-titles (Steen & Markert's strict scope)")
    parser.add_argument("--content-words", action="store_true", default=None,
                        help="with --agreement names-pronouns-titles: also rewrite the gendered nouns tied to a "
                             "person (Steen & Markert App. J, Table 18 and more); race: the same, with genders kept")
    parser.add_argument("--replace-last-names", action="store_true", default=None,
                        help="also replace last names with census surnames (gender; Steen & Markert App. C)")
    parser.add_argument("--top-n-names", type=int, help="draw first names from the top N per gender (default 50)")
    parser.add_argument("--name-source", choices=("bbq", "rosenman"),
                        help="race: where names come from: bbq (default; BBQ's name vocabulary, as Steen & Markert) "
                             "or rosenman (P(race | name) tables, frequency-matched)")
    parser.add_argument("--first-name-threshold", type=float, help="race, rosenman: minimum P(race | first name) (0.8)")
    parser.add_argument("--last-name-threshold", type=float, help="race, rosenman: minimum P(race | surname) (0.8)")
    parser.add_argument("--repeats", type=int, help="identity: copies per original (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _ratios(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"ratios are comma-separated numbers, got {text!r}") from None


def perturbation_params(args: argparse.Namespace) -> dict[str, Any]:
    """Return the config parameters the options give; reject options the chosen perturbation does not have."""
    fields = {field.name for field in dataclasses.fields(PERTURBATIONS[args.kind].config_class)}
    params: dict[str, Any] = {}
    for option, field_name in OPTION_FIELDS.items():
        value = getattr(args, option, None)
        if value is None:
            continue
        if field_name not in fields:
            raise InputError("command line", f"--{option.replace('_', '-')} does not apply to --kind {args.kind}",
                             hint=f"options of {args.kind}: {', '.join(sorted(fields))}")
        if option in COUNT_OPTIONS:
            check_option(f"--{option.replace('_', '-')}", COUNT_OPTIONS[option], value)
        params[field_name] = tuple(value) if option == "pair" else value
    return params


def run(args: argparse.Namespace) -> int:
    check_output_path(args.out)
    params = perturbation_params(args)
    try:
        perturbation = get_perturbation(args.kind, **params)
    except ValueError as error:
        raise InputError("command line", str(error)) from None
    columns = CsvColumns(value=args.value_column) if args.documents.suffix.lower() == ".csv" else None
    documents = load_documents(args.documents, columns=columns)
    if args.kind == "sentiment":
        problem = unknown_value_column(documents, perturbation.config, loaded_as=columns and columns.value)
        if problem:
            raise InputError(str(args.documents), problem.replace("value_column", "--value-column", 1))
    try:  # originals × samples, before any document is parsed (the audit's check, issue 30)
        check_perturbation_inputs(args.kind, perturbation.config, len(documents_for(args.kind, documents)))
    except ParamError as error:
        raise InputError(str(args.documents), str(error)) from None
    with tqdm(total=len(documents), unit="document", desc=f"perturb {args.kind}", file=sys.stderr,
              dynamic_ncols=True, disable=args.quiet) as bar:
        result = perturbation.run_with_progress(documents, progress=bar.update)
    written = write_jsonl(args.out, result.inputs)
    skips_path = args.out.with_name(args.out.name + ".skips.json")
    run_path = args.out.with_name(args.out.name + ".run.json")
    skips_path.write_text(json.dumps(result.report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    run_path.write_text(json.dumps(result.run_info, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {written} {args.kind} inputs from {len(documents)} documents to {args.out}", file=sys.stderr)
    print(result.report.summary(), file=sys.stderr)
    print(f"skip report: {skips_path}; run record: {run_path}", file=sys.stderr)
    if not result.inputs:
        raise InputError(str(args.documents), f"no document could be perturbed with --kind {args.kind}",
                         hint=f"see the reasons in {skips_path}")
    return 0
