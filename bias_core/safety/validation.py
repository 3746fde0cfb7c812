"""Checks of user-supplied values shared by the audit config, the summarizers and the command line.

A ``Param`` declares one parameter (type, range or choices); ``check_params`` checks a mapping of values against a
spec of them, so a bad value is refused with the same one-line message wherever it came from (TOML, ``--param``,
the app) and before any run is created or any model is loaded.
"""

from __future__ import annotations

import difflib
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bias_core.safety.errors import InputError

# numpy's legacy seeding and scikit-learn's random_state (the SFPI random forest) accept at most 2^32 − 1.
SEED_MAX = 2**32 - 1
# More resamples than this take hours per measure; a value above it is taken for a typo.
RESAMPLES_MAX = 1_000_000
# Inputs per model call: far above any model's useful batch, so a larger value is taken for a typo.
BATCH_SIZE_MAX = 100_000
# Perturbation counts (issue 23): without a maximum, samples = 2**63 or units_per_input = 10**7 ran for minutes and
# gigabytes before failing. Each maximum is far beyond any published setting yet keeps one original's work bounded.
# Name draws per original (gender, race; sentiment: inputs per ratio) and identity copies: the papers draw 10; each
# draw writes a pair (or quadruple) of whole inputs, so 1,000 draws of a 3 KB article already write 6–12 MB of inputs
# and 2,000–4,000 summaries per original and summarizer.
SAMPLES_MAX = 1_000
# Units (reviews, tweets, turns) joined into one perspective input: Zhang et al. join 10 to 100; 1,000 reviews are
# about 100,000 tokens, more than any summarizer's context, and the split tries every size below it per ratio.
UNITS_PER_INPUT_MAX = 1_000
# Names drawn from per gender or race: more than every shipped list holds (the longest has a few thousand), so a
# larger value changes nothing but is taken for a typo.
NAMES_MAX = 100_000
# Ratios of a perspective split and politician pairs: the papers use 3 to 5 and 1 to 4; each one multiplies the inputs.
LIST_MAX = 100
# Ray CPUs and summarizer actors (audit --ray-cpus, --ray-actors): more than a small cluster offers; each actor loads
# its own copy of the model, so a larger value would start that many processes.
WORKERS_MAX = 1_024
# A corpus is read whole into memory and held about four times over while it is parsed (measured: a 99 MB JSONL file
# peaks at 416 MB); a larger file is refused, not read. max_mb = 1e308 used to fail as an overflow traceback.
MAX_MB_MAX = 1_000

# Products of counts (issue 30): each count above has its maximum, but their product had none — 3,000 originals ×
# samples = 1,000 held 3.2 GB after 120 s on the command line without a line printed. Every input is held in memory
# while the inputs are built and stored: measured here, about 10 KB held per input of a 2.3 KB article (gender-loc
# over the demo news), so 250,000 inputs hold about 2.5 GB. That still lets a large audit through: 10,000
# originals × 5 samples with controls (200,000 inputs) plus their 10,000 identity inputs. Checked for each
# perturbation (originals × samples × inputs a sample, ``runs.selection.check_counts``) and for all of them together.
INPUTS_MAX = 250_000
# Summaries a run asks for, inputs × summarizers: each is a model call, stored as it comes and read back whole by the
# measures. 1,000,000 lets the large audit above through with 4 summarizers (840,000 summaries; a 50,000-input audit
# with 4 asks for 200,000). A million summaries take about 3 hours at 10 ms each (lead-3), 11 days at 1 s (a model).
SUMMARIES_MAX = 1_000_000

_KIND_NAMES = {int: "an integer", float: "a number", str: "text", bool: "true or false"}


class ParamError(ValueError):
    """A value that does not fit its declared parameter; the message names the parameter and the value."""


@dataclass(frozen=True)
class Param:
    """One declared parameter: its type, an inclusive (``minimum``/``maximum``) or exclusive (``above``/``below``)
    range, or a fixed set of ``choices``; ``optional`` allows None (JSON ``null``)."""

    kind: type
    minimum: float | None = None
    maximum: float | None = None
    above: float | None = None
    below: float | None = None
    choices: tuple[Any, ...] | None = None
    optional: bool = False

    def describe(self) -> str:
        """A short phrase for help and error messages, e.g. 'an integer ≥ 1' or 'a number > 0 and < 1'."""
        if self.choices is not None:
            return "one of " + ", ".join(str(choice) for choice in self.choices)
        bounds = [f"≥ {_number(self.minimum)}" if self.minimum is not None else "",
                  f"> {_number(self.above)}" if self.above is not None else "",
                  f"≤ {_number(self.maximum)}" if self.maximum is not None else "",
                  f"< {_number(self.below)}" if self.below is not None else ""]
        text = " ".join([_KIND_NAMES.get(self.kind, self.kind.__name__), " and ".join(b for b in bounds if b)])
        return text.strip() + (" (or null)" if self.optional else "")

    def check(self, name: str, value: Any) -> Any:
        """Return ``value`` (an integer given for a number becomes a float) or raise ``ParamError``."""
        if value is None and self.optional:
            return None
        given = value
        if self.choices is not None:
            if value not in self.choices:
                raise ParamError(f"{name} = {_show(value)} must be {self.describe()}")
            return value
        # bool is a subclass of int in Python: true/false is never accepted as a number.
        numeric = self.kind in (int, float)
        if numeric and (isinstance(value, bool) or not isinstance(value, (int, float))) \
                or not numeric and not isinstance(value, self.kind):
            raise ParamError(f"{name} = {_show(value)} is not {self.describe()}")
        if self.kind is int and isinstance(value, float):
            raise ParamError(f"{name} = {_show(value)} is not {self.describe()}")
        if self.kind is float:
            value = float(value)
            if not math.isfinite(value):
                raise ParamError(f"{name} = {_show(given)} is not {self.describe()}")
        if numeric and not self._in_range(value):
            raise ParamError(f"{name} = {_show(given)} is out of range: it must be {self.describe()}")
        return value

    def _in_range(self, value: float) -> bool:
        return ((self.minimum is None or value >= self.minimum) and (self.maximum is None or value <= self.maximum)
                and (self.above is None or value > self.above) and (self.below is None or value < self.below))


SEED = Param(int, minimum=0, maximum=SEED_MAX)
RESAMPLES = Param(int, minimum=1, maximum=RESAMPLES_MAX)
BATCH_SIZE = Param(int, minimum=1, maximum=BATCH_SIZE_MAX)
SAMPLES = Param(int, minimum=1, maximum=SAMPLES_MAX)
UNITS_PER_INPUT = Param(int, minimum=2, maximum=UNITS_PER_INPUT_MAX)
NAMES = Param(int, minimum=2, maximum=NAMES_MAX)
MAX_MB = Param(float, above=0, maximum=MAX_MB_MAX)
WORKERS = Param(int, minimum=1, maximum=WORKERS_MAX)


def check_list_length(name: str, values: Any, maximum: int = LIST_MAX) -> None:
    """Refuse a list option (ratios, pairs) with more than ``maximum`` entries, naming it."""
    if len(values) > maximum:
        raise ParamError(f"{name} has {len(values):,} entries; at most {maximum} are allowed")


def check_product(factors: Sequence[tuple[int, str, str]], what: str, maximum: int, advice: str) -> int:
    """The product of ``factors`` (each a count with its noun for one and for many); over ``maximum``, a
    ``ParamError`` giving the product and the limit: "3,000 originals × 1,000 samples = 3,000,000 inputs is over the
    limit of 200,000; lower samples or the number of documents"."""
    total = math.prod(count for count, _, _ in factors)
    expression = " × ".join(f"{count:,} {one if count == 1 else many}" for count, one, many in factors)
    check_total(expression, total, what, maximum, advice)
    return total


def check_total(expression: str, total: int, what: str, maximum: int, advice: str) -> None:
    """Raise ``ParamError`` "<expression> = <total> <what> is over the limit of <maximum>; <advice>" when ``total``
    is over ``maximum``."""
    if total > maximum:
        raise ParamError(f"{expression} = {total:,} {what} is over the limit of {maximum:,}; {advice}")


def check_summaries(inputs: int, summarizers: int, advice: str) -> int:
    """Inputs × summarizers, the summaries a run asks for; over ``SUMMARIES_MAX``, one ``ParamError`` line."""
    return check_product([(inputs, "input", "inputs"), (summarizers, "summarizer", "summarizers")], "summaries",
                         SUMMARIES_MAX, advice)


def check_params(spec: Mapping[str, Param], values: Mapping[str, Any]) -> dict[str, Any]:
    """Check every value against its declared parameter; an undeclared name is refused with the allowed ones.

    Returns the checked values; raises ``ParamError`` with the first problem.
    """
    checked: dict[str, Any] = {}
    for name, value in values.items():
        if name not in spec:
            raise ParamError(unknown_key_message("parameter", name, spec))
        checked[name] = spec[name].check(name, value)
    return checked


def check_option(option: str, param: Param, value: Any) -> Any:
    """Check a command-line option's value; raise ``InputError`` ("command line: --seed = -1 is out of range…")."""
    try:
        return param.check(option, value)
    except ParamError as error:
        raise InputError("command line", str(error)) from None


def unknown_key_message(what: str, name: str, known: Mapping[str, Any] | list[str] | tuple[str, ...]) -> str:
    """'unknown parameter 'dampng' (did you mean 'damping'?); allowed: k, damping'."""
    names = list(known)
    close = difflib.get_close_matches(str(name), names, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    allowed = ", ".join(names) if names else "none"
    return f"unknown {what} '{name}'{hint}; allowed: {allowed}"


def check_output_path(path: str | os.PathLike, option: str = "--out") -> None:
    """Refuse, before any work, an output path that is a folder or lies in a folder this process cannot write.

    The check creates (and removes) a temporary file in the nearest existing folder: permission bits alone do not
    say whether a write will succeed (read-only mounts, root), a real attempt does.
    """
    target = output_file(path, option)
    if target.is_dir():
        raise InputError(option, f"{target} is a folder", hint="give the path of a file to write")
    folder = target.parent if str(target.parent) else Path(".")
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(option, f"{folder} is not a folder", hint="give the path of a file in a folder")
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".summbias-write-check-"):
            pass
    except OSError as error:
        raise InputError(option, f"cannot write into the folder {folder} ({error.strerror or error})",
                         hint="choose a folder you can write to") from None


def output_file(path: str | os.PathLike, option: str = "--out") -> Path:
    """The file a write to ``path`` replaces: ``path``, or for a symbolic link the file it points to. Every ``--out``
    writer writes through a link, as the shell's ``>`` does, so the link stays and its target gets the new content
    (replacing the link with a new file broke links kept on purpose, e.g. ``latest.json``); a link that loops or
    points into itself is one ``InputError`` line."""
    target = Path(os.path.realpath(path))
    if target.is_symlink():
        raise InputError(option, f"{path} is a symbolic link that loops", hint="remove it or choose another path")
    return target


def _number(value: float) -> str:
    return f"{value:,.0f}".replace(",", " ") if float(value).is_integer() and abs(value) >= 10_000 else f"{value:g}"


def _show(value: Any) -> str:
    """A value as a message shows it: strings quoted, long ones cut."""
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "…"
