"""The papers' published numbers recomputed from the authors' released outputs, paper against summbias.

The strongest check that a measure is the paper's measure is the paper's own table, recomputed by summbias from the
outputs the authors released. This module does that for every published number the project can reach and says, for
the rest, why it cannot. The released outputs are third-party data kept outside the project (``../shared/reference``
in development and CI, or any folder named by ``SUMMBIAS_REFERENCE`` / ``--reference``); nothing here ships them.

``python -m bias_core reproduce`` prints the table (``format_table``); ``docs/fidelity.md`` holds a copy.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bias_core.common.paths import PROJECT_DIR
from bias_core.documents.decoding import text_file

# Where the reference folders live in a development checkout or in CI: next to the repository, as ../shared.
DEFAULT_REFERENCE = PROJECT_DIR / ".." / "shared" / "reference"


@dataclass(frozen=True)
class Cell:
    """One published number and summbias's recomputation of it, in the paper's unit and rounding."""

    paper: str
    table: str
    row: str
    measure: str
    published: float
    recomputed: float
    decimals: int = 2

    @property
    def difference(self) -> float:
        """Recomputed − published, at the paper's rounding (0.0 when the cell is reproduced)."""
        return round(round(self.recomputed, self.decimals) - self.published, self.decimals) + 0.0

    @property
    def matches(self) -> bool:
        return self.difference == 0.0


@dataclass(frozen=True)
class Unreachable:
    """A published table summbias cannot recompute, and why."""

    paper: str
    table: str
    reason: str


@dataclass
class Reproduction:
    """Every reachable cell, every unreachable table, and what was skipped because its data is absent here."""

    cells: list[Cell] = field(default_factory=list)
    unreachable: list[Unreachable] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


# --- Xie et al. (2023), Counter-GAP, Tables 2-3 -------------------------------------------------------------------

COUNTER_GAP_PAPER = "Xie et al. 2023 (Counter-GAP)"
# Tables 2-3, in %: Acc_Diff, I_within, I_across, ΔI per coreference model.
COUNTER_GAP_PUBLISHED = {
    "bert_base": {"acc_diff": 3.59, "i_within": 15.97, "i_across": 20.76, "delta_i": 4.79},
    "bert_large": {"acc_diff": 0.50, "i_within": 10.28, "i_across": 12.57, "delta_i": 2.30},
    "spanbert_base": {"acc_diff": 2.30, "i_within": 11.08, "i_across": 13.62, "delta_i": 2.54},
    "spanbert_large": {"acc_diff": 1.85, "i_within": 6.04, "i_across": 7.53, "delta_i": 1.50},
}
_COUNTER_GAP_ROLES = {"": "original", "control": "control", "swap-1": "swap1", "swap-2": "swap2"}
_MALE_PRONOUNS = {"he", "him", "his", "himself"}


def counter_gap_outcomes(folder: Path, model: str) -> list:
    """The released predictions of one model as quadruple outcomes (METHODS §4.8): an instance is correct when both
    its A and B coreference predictions equal the gold labels; its group is the gender of its target pronoun."""
    from bias_core.measures.quadruples import Outcome

    def read(name: str) -> dict[str, dict]:  # only a regular file, within the documents' limit (issue 30)
        return {row["ID"]: row for row in csv.DictReader(text_file(folder / name), delimiter="\t")}

    gold, predicted = read("cgap_gold_labels.tsv"), read(f"{model}_output.tsv")
    outcomes = []
    for instance_id, row in gold.items():
        number, _, suffix = instance_id.partition("-")
        prediction = predicted[instance_id]
        correct = prediction["A-coref"] == row["A-coref"] and prediction["B-coref"] == row["B-coref"]
        group = "male" if row["Pronoun"].lower() in _MALE_PRONOUNS else "female"
        outcomes.append(Outcome(number, _COUNTER_GAP_ROLES[suffix], group, int(correct)))
    return outcomes


def counter_gap_cells(folder: Path) -> list[Cell]:
    """Counter-GAP's 16 published values from the four models' released predictions (``counter-gap/``)."""
    from bias_core.measures.quadruples import quadruple_inconsistency

    cells = []
    for model, published in COUNTER_GAP_PUBLISHED.items():
        # The values do not depend on the resamples; a few keep the call quick (the intervals are not shown here).
        results = {r.measure: r for r in quadruple_inconsistency(counter_gap_outcomes(folder, model),
                                                                  n_resamples=50, seed=0)}
        for measure, value in published.items():
            cells.append(Cell(COUNTER_GAP_PAPER, "Tables 2-3", model, measure, value,
                              100 * results[measure].value))
    return cells


# --- Zhang et al. (2024), FairSumm, Table 10 ----------------------------------------------------------------------

FAIRSUMM_PAPER = "Zhang et al. 2024 (FairSumm)"


def fairsumm_cells(folder: Path) -> list[Cell]:
    """Table 10's Yelp N-gram cells (BUR, UER in %, τ = 0.8) from the released GPT-4 and Alpaca summaries
    (``fairsumm/``), with the authors' N-gram pipeline (``perspective_matching = "fairsumm-ngram"``)."""
    from bias_core.measures.fairsumm_ngram import TABLE10_PUBLISHED
    from bias_core.measures.fairsumm_table10 import table10_cells

    recomputed = table10_cells(folder)
    return [Cell(FAIRSUMM_PAPER, "Table 10 (Yelp, N-gram)", model, measure, published,
                 recomputed[model][measure])
            for model, values in TABLE10_PUBLISHED.items() for measure, published in values.items()]


# --- What cannot be recomputed -------------------------------------------------------------------------------------

UNREACHABLE = [
    Unreachable(FAIRSUMM_PAPER, "Table 4, reference-summary rows (Amazon 95.00 / 18.50, Yelp 68.00 / 26.43)",
                "no protocol reproduces them, not even the authors' own code on their released gold files: it gives "
                "62-72 / 3.5-4.3 (Amazon) and 20-33 / 2.6-3.4 (Yelp) whichever reference summary is used"),
    Unreachable(FAIRSUMM_PAPER, "Table 10, BERTScore and BARTScore columns",
                "they need the BERTScore / BARTScore models, which an offline build does not ship (summbias offers "
                "N-gram and MiniLM embedding matching)"),
    Unreachable(FAIRSUMM_PAPER, "Table 10, Amazon and the other datasets",
                "for Claritin, election, debates and court the released outputs and preprocessed inputs are large "
                "files the repository snapshot here does not hold; Amazon's GPT-4 and Alpaca outputs are released and "
                "its inputs could be rebuilt from the GPT-4 prompts as Yelp's were, but that rebuild (and a check "
                "against the authors' code) is not done yet"),
    Unreachable("Steen & Markert 2024", "all tables (Tables 1-9, 12-13, 16-17, 19-20)",
                "julmaxi/summary_bias releases code and name files but no input, summary, parse or result file "
                "(OntoNotes is licensed by the LDC); what can be compared is: its Table 10 word lists equal "
                "summbias's, and steen_markert_rules = \"authors\" gives its code's numbers on the same inputs "
                "(45 of 45 cells, benchmarks/steen_markert_side_by_side.py)"),
    Unreachable("Zhou & Tan 2023", "all tables (feature t-tests, HIGHSIM / LOWSIM Fightin' Words)",
                "the released original and replaced summaries are on Harvard Dataverse "
                "(doi:10.7910/DVN/SHEVDA), which this build cannot reach (no network but the package registries); "
                "the articles themselves are NOW-corpus texts the authors could not release"),
    Unreachable("Lexical-bias amplification (BIC paper)", "MBIC / SFPI tables",
                "they need the BASIL sentence annotations and the authors' summarizer scores, neither of which is "
                "released in a form this build can read"),
]


def reference_folder(path: str | os.PathLike | None = None) -> Path:
    """The folder holding the released outputs: ``path``, else ``SUMMBIAS_REFERENCE``, else ../shared/reference."""
    chosen = path or os.environ.get("SUMMBIAS_REFERENCE") or DEFAULT_REFERENCE
    return Path(chosen).resolve()


PARTS: dict[str, tuple[str, Callable[[Path], list[Cell]]]] = {
    "counter-gap": ("counter-gap", counter_gap_cells),
    "fairsumm": ("fairsumm", fairsumm_cells),
}


def reproduce(reference: str | os.PathLike | None = None, parts: tuple[str, ...] = tuple(PARTS)) -> Reproduction:
    """Recompute every reachable published number whose released outputs are under ``reference``; a part whose
    folder is absent is listed in ``missing`` instead of failing, so the command still prints what it can."""
    root = reference_folder(reference)
    reproduction = Reproduction(unreachable=list(UNREACHABLE))
    for part in parts:
        subfolder, compute = PARTS[part]
        folder = root / subfolder
        if not folder.is_dir():
            reproduction.missing.append(f"{part}: no folder {folder}")
            continue
        started = time.perf_counter()
        reproduction.cells.extend(compute(folder))
        reproduction.seconds[part] = round(time.perf_counter() - started, 1)
    return reproduction


def format_table(reproduction: Reproduction) -> str:
    """The reproduction as a Markdown table (paper | table | row | measure | published | summbias | difference),
    then the unreachable tables and anything skipped."""
    lines = ["| paper | table | row | measure | published | summbias | difference |",
             "|---|---|---|---|---:|---:|---:|"]
    for cell in reproduction.cells:
        lines.append(f"| {cell.paper} | {cell.table} | {cell.row} | {cell.measure} | {cell.published:.{cell.decimals}f}"
                     f" | {cell.recomputed:.{cell.decimals}f} | {cell.difference:+.{cell.decimals}f} |")
    matched = sum(cell.matches for cell in reproduction.cells)
    lines += ["", (f"{matched} of {len(reproduction.cells)} published numbers reproduced exactly at the paper's "
                   "rounding.")]
    if reproduction.seconds:
        lines.append("Time: " + ", ".join(f"{part} {seconds:.1f} s" for part, seconds in reproduction.seconds.items())
                     + ".")
    if reproduction.missing:
        lines += ["", "Skipped (released outputs not found here; set SUMMBIAS_REFERENCE or --reference):"]
        lines += [f"- {line}" for line in reproduction.missing]
    lines += ["", "Not reproducible, and why:"]
    lines += [f"- {item.paper}, {item.table}: {item.reason}." for item in reproduction.unreachable]
    return "\n".join(lines)
