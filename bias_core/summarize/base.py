"""The one summarizer interface and the name registry (METHODS §2).

Every summarizer takes a batch of inputs and returns, per input, a ``Summary`` or a ``SummaryFailure``. Names map to
summarizers through patterns (``lead-3`` → Lead with k=3, ``hf:<id>`` → a Hugging Face model), so a run's config
can name summarizers as plain strings.
"""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from bias_core.common.records import Input, Summary
from bias_core.safety.errors import SummarizerError
from bias_core.safety.validation import Param, ParamError, check_params


@dataclass(frozen=True)
class SummaryFailure:
    """A summary that could not be produced; failures are reported and never cached."""

    input_id: str
    summarizer: str
    error: str


SummaryOutcome = Summary | SummaryFailure


class ItemsFinished(Protocol):
    """Told how many more inputs of a batch are finished, as they finish, and, where the engine has them then,
    their outcomes by position in the batch, so the caller can keep each one at once (see
    ``Summarizer.summarize_batch_reporting``)."""

    def __call__(self, count: int, outcomes: Mapping[int, SummaryOutcome] | None = None, /) -> None: ...


class Summarizer(ABC):
    """Base class: subclasses set ``name`` and implement ``summarize_batch``.

    ``parameters()`` and ``revision()`` go into every summary's ``meta`` and into the cache key, so two runs that
    differ in any setting never share a cached summary.
    """

    name: str
    # The parameters a config or ``--param`` may set, each with its type and range (see ``validation.Param``).
    parameter_spec: ClassVar[dict[str, Param]] = {}
    code_version: ClassVar[str] = "1"
    # Whether the output also depends on the input's original (extractive summarizers cut a perturbed input where its
    # original's sentences start): the cache key then includes the original text.
    reads_original: ClassVar[bool] = False
    prompt_version: str | None = None
    default_batch_size: int = 64
    extractive: ClassVar[bool] = False
    # Told, while the summarizer waits on its engine (an endpoint's rate limit), what it waits on, and None when the
    # wait ends (``runner.summarize_inputs(on_wait=…)`` sets it for one call); engines that never wait ignore it.
    on_wait: Callable[[str | None], None] | None = None

    @abstractmethod
    def parameters(self) -> dict[str, Any]:
        """Return the settings that determine the output (recorded and hashed into the cache key)."""

    def revision(self) -> str:
        """Return the model revision (a hash or commit id); algorithmic summarizers have none."""
        return "none"

    @abstractmethod
    def summarize_batch(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        """Summarize a batch; return one outcome per input, in order."""

    def summarize_batch_reporting(self, inputs: Sequence[Input], on_finished: ItemsFinished) -> list[SummaryOutcome]:
        """``summarize_batch``, calling ``on_finished(n)`` as n more of its inputs are finished, so progress can move
        per summary; engines that see single inputs finish (CTranslate2, endpoints) override this default, which
        reports the whole batch when it ends. An engine that has an input's outcome when it finishes passes it too
        (``on_finished(1, {position: outcome})``: endpoints), so it is kept even if the batch is interrupted."""
        outcomes = self.summarize_batch(inputs)
        on_finished(len(inputs))
        return outcomes

    def summarize(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        """Summarize any number of inputs in batches of ``default_batch_size`` (no cache; see ``runner``)."""
        outcomes: list[SummaryOutcome] = []
        for start in range(0, len(inputs), self.default_batch_size):
            outcomes.extend(self.summarize_batch(inputs[start : start + self.default_batch_size]))
        return outcomes

    def __getstate__(self) -> dict[str, Any]:
        # A summarizer sent to another process (a Ray actor) leaves its waits' listener here: it belongs to this
        # process's progress, and may hold what cannot be pickled (the run store).
        state = self.__dict__.copy()
        state.pop("on_wait", None)
        return state

    def meta(self) -> dict[str, Any]:
        return {
            "summarizer": self.name,
            "revision": self.revision(),
            "parameters": self.parameters(),
            "prompt_version": self.prompt_version,
            "code_version": self.code_version,
        }


def clean_output(text: str) -> str:
    """Model output as storable text: lone surrogates (which cannot be written as UTF-8) become U+FFFD and NUL
    characters are dropped; everything else, markup included, is kept (pages and exports escape it)."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").replace("\x00", "")


def text_seed(seed: int, text: str) -> int:
    """A 64-bit seed derived from a run seed and an input text.

    Randomness keyed on the text (not the input id) keeps seeded summarizers consistent with the cache, whose key
    hashes the text: the same text under the same seed always gets the same draw.
    """
    digest = hashlib.sha256(f"{seed}\x00{text}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


Factory = Callable[[re.Match[str], dict[str, Any]], Summarizer]
NameParameters = Callable[[re.Match[str]], dict[str, Any]]


@dataclass(frozen=True)
class Registration:
    """A family of summarizer names: the pattern, an example, and how a matching name is built.

    With ``summarizer`` (a class), a name builds ``summarizer(**from_name(match), **params)`` after the parameters
    are checked against ``summarizer.parameter_spec``; ``from_name`` gives the parameters the name itself fixes
    (``lead-3`` → ``k=3``, ``hf:<id>`` → ``model=<id>``). A bare ``factory`` builds the summarizer unchecked.
    """

    pattern: re.Pattern[str]
    example: str
    summarizer: type[Summarizer] | None = None
    from_name: NameParameters | None = None
    factory: Factory | None = None

    def build_arguments(self, match: re.Match[str], params: dict[str, Any]) -> dict[str, Any]:
        """The checked constructor arguments for ``summarizer``; raises ``ParamError`` naming the problem."""
        assert self.summarizer is not None
        spec = self.summarizer.parameter_spec
        fixed = self.from_name(match) if self.from_name else {}
        for key in params:
            if key in fixed:
                raise ParamError(f"{key} is set by the name '{match.group(0)}'; remove the parameter")
        named = {key: spec[key].check(key, value) if key in spec else value for key, value in fixed.items()}
        return {**named, **check_params(spec, params)}


_REGISTRY: list[Registration] = []


def register(pattern: str, example: str, summarizer: type[Summarizer] | None = None, *,
             from_name: NameParameters | None = None) -> Callable[[Factory], Factory]:
    """Register the summarizer names matching ``pattern`` (a full-match regex).

    Give the class (and ``from_name`` for what the name fixes) so that parameters are checked against its
    ``parameter_spec`` before anything is built; or use the result as a decorator on a factory of your own.
    """
    compiled = re.compile(pattern)
    if summarizer is not None:
        _REGISTRY.append(Registration(compiled, example, summarizer, from_name))

    def decorator(factory: Factory) -> Factory:
        _REGISTRY.append(Registration(compiled, example, factory=factory))
        return factory

    return decorator


def _find(name: str) -> tuple[Registration, re.Match[str]]:
    for registration in _REGISTRY:
        match = registration.pattern.fullmatch(name)
        if match:
            return registration, match
    known = ", ".join(registration.example for registration in _REGISTRY)
    raise SummarizerError(f"unknown summarizer '{name}'; known forms: {known}")


def check_summarizer(name: str, **params: Any) -> None:
    """Check a summarizer name and its parameters (type, range, known names) without building anything.

    Raises ``SummarizerError``, e.g. "summarizer 'textrank' has bad parameters: damping = 5 is out of range: it
    must be a number > 0 and < 1". This is what lets an audit refuse a bad config before it creates a run or loads
    a model.
    """
    registration, match = _find(name)
    if registration.summarizer is not None:
        try:
            registration.build_arguments(match, dict(params))
        except ParamError as error:
            raise SummarizerError(f"summarizer '{name}' has bad parameters: {error}") from None


def get_summarizer(name: str, **params: Any) -> Summarizer:
    """Build the summarizer a name stands for, e.g. ``get_summarizer("lead-3")`` or ``("openai:gpt-4o", base_url=…)``.

    Parameters are checked first (``check_summarizer``), so a bad value never reaches a model load.
    """
    registration, match = _find(name)
    try:
        if registration.summarizer is not None:
            return registration.summarizer(**registration.build_arguments(match, dict(params)))
        assert registration.factory is not None
        return registration.factory(match, dict(params))
    except ParamError as error:
        raise SummarizerError(f"summarizer '{name}' has bad parameters: {error}") from None
    except (TypeError, ValueError) as error:
        raise SummarizerError(f"summarizer '{name}' has bad parameters ({error})") from None


def summarizer_examples() -> list[str]:
    """Return one example name per registered summarizer family, in registration order."""
    return [registration.example for registration in _REGISTRY]
