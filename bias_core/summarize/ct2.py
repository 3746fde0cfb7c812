"""CTranslate2 engine for local causal LMs: the same prompts, greedy decoding and post-processing as ``hf.py``, faster.

A transformers model folder is converted once (``TransformersConverter``) into a sibling folder of the user cache,
with int8 weights on CPU and float16 on a GPU; CTranslate2 then runs the decoder with quantised matrix products
and a preallocated cache, about twice as fast as transformers in float32 on two cores (``benchmarks/engines.py``).
Outputs differ slightly from float32, so the engine and the compute type are part of the revision and the cache key.
Prompt building, the input budget, the cut to complete sentences and the meta keys are ``HuggingFaceSummarizer``'s.
"""

from __future__ import annotations

import functools
import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bias_core.common.records import Input
from bias_core.safety.errors import SummarizerError
from bias_core.summarize.base import ItemsFinished, SummaryOutcome
from bias_core.summarize.hf import PROMPT_TOKEN_MARGIN, HuggingFaceSummarizer, stop_ids, thread_count

logger = logging.getLogger(__name__)

ENGINE = "ctranslate2"
REQUIREMENT = "ctranslate2==4.8.5"
# Copied beside the converted weights so that the folder records what it was converted from.
SOURCE_FILES = ("generation_config.json", "tokenizer.json", "tokenizer_config.json", "chat_template.jinja")
_LOAD_LOCK = threading.Lock()


def _ctranslate2() -> Any:
    try:
        import ctranslate2
    except ImportError:
        raise SummarizerError(f"the CTranslate2 engine needs its package: `pip install {REQUIREMENT}`, "
                              "or choose engine='transformers'") from None
    return ctranslate2


def device_and_compute_type() -> tuple[str, str]:
    """``("cuda", "float16")`` when CTranslate2 sees a GPU, else ``("cpu", "int8")``."""
    if _ctranslate2().get_cuda_device_count() > 0:
        return "cuda", "float16"
    return "cpu", "int8"


def converted_ct2_dir(source: Path, compute_type: str) -> Path:
    """The CTranslate2 folder for the transformers folder ``source`` with weights stored as ``compute_type``.

    Converted on first use next to ``source`` (its name carries the source's name, which for smollm2 holds the
    GGUF hash). As for the GGUF conversion, the model is written into a temporary folder that is renamed into
    place, so a crash or a concurrent process never leaves a half-written model under the final name.
    """
    target = source.parent / f"{source.name}-ct2-{compute_type}"
    if not (target / "model.bin").is_file():
        if not (source / "config.json").is_file():
            raise SummarizerError(f"no transformers model in {source} (config.json is missing) to convert to "
                                  "CTranslate2; for smollm2, delete the folder so that it is converted again")
        started = time.perf_counter()
        logger.info("converting %s to CTranslate2 (%s) in %s (once)", source.name, compute_type, target)
        _convert(source, target, compute_type)
        logger.info("converted in %.1f s", time.perf_counter() - started)
    return target


def _convert(source: Path, target: Path, compute_type: str) -> None:
    ctranslate2 = _ctranslate2()
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    staging = Path(tempfile.mkdtemp(prefix=".ct2-", dir=target.parent))
    try:
        copy_files = [name for name in SOURCE_FILES if (source / name).is_file()]
        converter = ctranslate2.converters.TransformersConverter(str(source), copy_files=copy_files)
        # The staging folder exists already (mkdtemp), hence force=True; it is ours and empty.
        converter.convert(str(staging), quantization=compute_type, force=True)
        try:
            staging.rename(target)
        except OSError:
            if not (target / "model.bin").is_file():
                raise
    except (OSError, ValueError, KeyError, RuntimeError, NotImplementedError) as error:
        raise SummarizerError(f"could not convert {source} to CTranslate2 ({_first_line(error)}); "
                              "choose engine='transformers' or report the model") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@functools.lru_cache(maxsize=4)
def load_generator(folder: str, source: str, device: str, compute_type: str, threads: int) -> tuple[Any, Any, Any]:
    """Load (generator, tokenizer, generation config) once per process; raise ``SummarizerError`` with what to do.

    The tokenizer and generation config come from the transformers folder the model was converted from, so the
    chat template and the end-of-sequence ids are exactly those the transformers engine uses.
    """
    ctranslate2 = _ctranslate2()
    from transformers import AutoTokenizer, GenerationConfig

    # On CPU, one single-threaded replica per core, each generating whole inputs: measured as fast as one batch of 8
    # on two OpenMP threads (benchmarks/README.md), with less CPU time under load, and each summary independent of
    # the other inputs in its batch. On a GPU, one replica takes whole batches.
    threading_options = {"inter_threads": threads, "intra_threads": 1} if device == "cpu" else {}
    try:
        generator = ctranslate2.Generator(folder, device=device, compute_type=compute_type, **threading_options)
    except (RuntimeError, ValueError, OSError) as error:
        raise SummarizerError(f"could not load the CTranslate2 model in {folder} ({_first_line(error)}); delete "
                              "that folder to convert it again on next use") from None
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        generation_config = GenerationConfig.from_pretrained(source)
    except (OSError, ValueError) as error:
        raise SummarizerError(f"could not load the tokenizer in {source} ({_first_line(error)})") from None
    return generator, tokenizer, generation_config


# How often the asynchronous results are polled: far below one generation (seconds), far above the cost of a poll.
POLL_SECONDS = 0.05


def _collect_reporting(pending: list[Any], on_finished: ItemsFinished,
                       outcome: Callable[[int, Any], SummaryOutcome] | None = None) -> list[Any]:
    """The results of CTranslate2's asynchronous generations in input order, each reported as it finishes (with
    ``outcome(position, result)``, its summary, when given).

    Polled rather than awaited in order: a long generation would otherwise hold back the report of shorter ones
    that other replicas finished meanwhile, and progress would come in bursts.
    """
    waiting = dict(enumerate(pending))
    finished: dict[int, Any] = {}
    while waiting:
        ready = [index for index, result in waiting.items() if result.done()]
        for index in ready:
            finished[index] = waiting.pop(index).result()
            if outcome is None:
                on_finished(1)
            else:
                on_finished(1, {index: outcome(index, finished[index])})
        if not ready:
            time.sleep(POLL_SECONDS)
    return [finished[index] for index in range(len(pending))]


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0].rstrip(".") if text else type(error).__name__


class CTranslate2Summarizer(HuggingFaceSummarizer):
    """A causal LM in a local transformers folder, run by CTranslate2 (converted on first use).

    Greedy (or beam) decoding with the same ``max_new_tokens``, prompts and post-processing as the transformers
    engine. ``generate_batch`` gets the whole batch; on CPU its replicas take one input each in parallel, on a GPU
    it splits the batch into ``batch_size`` chunks sorted by length.
    """

    def _ct2_setup(self) -> tuple[str, str]:
        device, compute_type = device_and_compute_type()
        self.ct2_device, self.compute_type = device, compute_type
        return device, compute_type

    def _load_ct2(self) -> tuple[Any, Any, Any]:
        source = Path(self.model_id)
        device, compute_type = self._ct2_setup()
        with _LOAD_LOCK:
            folder = converted_ct2_dir(source, compute_type)
            return load_generator(str(folder), str(source), device, compute_type, thread_count())

    def summarize_batch(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        return self._generate(inputs, None)

    def summarize_batch_reporting(self, inputs: Sequence[Input], on_finished: ItemsFinished) -> list[SummaryOutcome]:
        """``summarize_batch`` with each input reported, with its summary, as its generation ends (CTranslate2's
        asynchronous results: the replicas take one input each, so they finish one by one)."""
        return self._generate(inputs, on_finished)

    def _generate(self, inputs: Sequence[Input], on_finished: ItemsFinished | None) -> list[SummaryOutcome]:
        generator, tokenizer, generation_config = self._load_ct2()
        started = time.perf_counter()
        texts, prompt_ids, input_cut = self.causal_prompts(tokenizer, inputs)
        # The same cap on the whole prompt as the transformers engine's tokenizer call (truncation, right side).
        token_ids = tokenizer(texts, truncation=True, max_length=self.max_input_tokens + PROMPT_TOKEN_MARGIN,
                              add_special_tokens=False).input_ids
        start_tokens = [tokenizer.convert_ids_to_tokens(ids) for ids in token_ids]
        settings = self.generation_settings(None, False)
        stops = stop_ids(generation_config, tokenizer)
        # One input per CTranslate2 batch on CPU (see load_generator): a batch pads its prompts to a common prefix
        # and decodes the rest token by token, which changes the arithmetic and so, at times, the greedy output.
        max_batch_size = 1 if self.ct2_device == "cpu" else self.default_batch_size
        generation = {**generation_config.to_diff_dict(), **settings, "engine": ENGINE,
                      "compute_type": self.compute_type}
        generation.pop("transformers_version", None)

        def summaries(positions: Sequence[int], output: list[Any]) -> list[SummaryOutcome]:
            decoded = tokenizer.batch_decode(output, skip_special_tokens=True)
            return self.finish_summaries([inputs[i] for i in positions], decoded,
                                         self._hit_token_limit(output, settings, stops),
                                         [prompt_ids[i] for i in positions], [input_cut[i] for i in positions],
                                         generation, started)

        def one(position: int, result: Any) -> SummaryOutcome:  # each summary as its generation ends
            return summaries([position], [result.sequences_ids[0]])[0]

        try:
            results = generator.generate_batch(
                start_tokens, max_batch_size=max_batch_size, beam_size=settings["num_beams"],
                max_length=settings["max_new_tokens"], include_prompt_in_result=False,
                end_token=sorted(stops), return_end_token=True, asynchronous=on_finished is not None,
            )
            if on_finished is not None:
                results = _collect_reporting(results, on_finished, one)
        except (RuntimeError, ValueError) as error:
            raise SummarizerError(f"{self.name}: generation failed ({_first_line(error)})") from None
        return summaries(range(len(inputs)), [result.sequences_ids[0] for result in results])
