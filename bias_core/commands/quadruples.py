"""`python -m bias_core quadruples`: I_across, I_within, ΔI and Acc_Diff from outcomes.csv (METHODS §4.8).

INTERFACES.md "outcomes.csv": columns ``quadruple_id, role, group, outcome`` with role ∈ original, control, swap1,
swap2 and outcome ∈ {0, 1}. Writes measures.json.
"""

from __future__ import annotations

import argparse
import csv
import logging
from pathlib import Path

from bias_core.common import stats
from bias_core.documents.decoding import text_file
from bias_core.documents.record_files import write_measures
from bias_core.measures.quadruples import QUADRUPLE_ROLES, Outcome, quadruple_inconsistency
from bias_core.safety.errors import InputError, stage
from bias_core.safety.validation import RESAMPLES, SEED, check_option, check_output_path

logger = logging.getLogger(__name__)

REQUIRED_COLUMNS = ("quadruple_id", "role", "group", "outcome")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "quadruples", help="counterfactual inconsistency (ΔI, Acc_Diff) from per-instance binary outcomes",
        description="Compute I_across, I_within, ΔI = I_across − I_within and Acc_Diff with bootstrap CIs and "
                    "one-sided paired-bootstrap p-values over quadruples (Counter-GAP §3).")
    parser.add_argument("--outcomes", required=True, help="outcomes.csv: quadruple_id, role, group, outcome")
    parser.add_argument("--out", required=True, help="measures.json to write")
    parser.add_argument("--bootstrap", type=int, default=stats.DEFAULT_RESAMPLES, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument("--group-order", default=None,
                        help="'GROUP1,GROUP2' for Acc_Diff = acc(GROUP1) − acc(GROUP2) "
                             "(default: male,female when those are the groups, else sorted)")
    parser.set_defaults(func=run)


def read_outcomes(path: str | Path) -> list[Outcome]:
    """Read outcomes.csv; a bad header, role or outcome raises InputError naming the line."""
    reader = csv.DictReader(text_file(path, hint="split the outcomes into smaller files"))
    try:
        missing = [column for column in REQUIRED_COLUMNS if column not in (reader.fieldnames or [])]
        if missing:
            raise InputError(str(path), f"missing column(s) {', '.join(missing)}",
                             hint=f"the header must name {', '.join(REQUIRED_COLUMNS)}")
        rows = []
        for line, record in enumerate(reader, start=2):
            # DictReader fills a short row with None and puts the cells of a long row under the key None.
            if None in record or None in record.values():
                cells = sum(value is not None for key, value in record.items() if key is not None) \
                    + len(record.get(None) or [])
                raise InputError(str(path), f"has {cells} cells, the header has {len(reader.fieldnames or [])}",
                                 row=line, hint="every row needs quadruple_id, role, group and outcome")
            role = (record["role"] or "").strip()
            if role not in QUADRUPLE_ROLES:
                raise InputError(str(path), f"role '{role}' is not one of {', '.join(QUADRUPLE_ROLES)}", row=line)
            outcome = (record["outcome"] or "").strip()
            if outcome not in ("0", "1"):
                raise InputError(str(path), f"outcome '{outcome}' must be 0 or 1", row=line)
            rows.append(Outcome(record["quadruple_id"].strip(), role, (record["group"] or "").strip(),
                                int(outcome)))
    except csv.Error as error:
        raise InputError(str(path), f"is not a readable CSV file ({error})", row=reader.line_num) from None
    if not rows:
        raise InputError(str(path), "contains no rows")
    return rows


def run(args: argparse.Namespace) -> int:
    check_output_path(args.out)
    check_option("--bootstrap", RESAMPLES, args.bootstrap)
    check_option("--seed", SEED, args.seed)
    rows = read_outcomes(args.outcomes)
    group_order = None
    if args.group_order:
        parts = [part.strip() for part in args.group_order.split(",")]
        if len(parts) != 2 or not all(parts):
            raise InputError("--group-order", f"'{args.group_order}' must name two groups, e.g. male,female")
        group_order = (parts[0], parts[1])
    with stage(f"quadruples {args.outcomes}"):
        results = quadruple_inconsistency(rows, group_order=group_order, n_resamples=args.bootstrap, seed=args.seed)
    write_measures(args.out, results)
    for result in results:
        logger.info("%s = %s (n = %d)", result.measure, result.value, result.n)
    return 0
