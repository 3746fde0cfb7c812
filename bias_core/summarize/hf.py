"""Hugging Face summarizers: any seq2seq or causal LM by Hub id or local path (METHODS §2).

Seq2seq models (BART, Pegasus, T5) read the article directly and use the model's own default generation settings,
as the papers did; causal LMs get the versioned prompts of ``prompts.py`` through the tokenizer's chat template and
decode greedily. The settings actually used are recorded in every summary's ``meta``.

A model that does not load is one line that says neither what its files hold nor whether a path exists (issue 30):
the app's ``[[models]]`` entries name the models a browser may load, and ``token_env`` names the only variable whose
Hub token loading may send (``""``: none; not given, as on the command line: the Hub client's own default).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bias_core.common.records import Input, Summary
from bias_core.safety.errors import SummarizerError, one_line
from bias_core.summarize.base import ItemsFinished, Param, Summarizer, SummaryOutcome, clean_output, register
from bias_core.summarize.prompts import PROMPT_PARAMETERS, PROMPT_VERSION, PromptSettings, build_prompt
from bias_core.summarize.truncation import complete_sentences

logger = logging.getLogger(__name__)

_LOAD_LOCK = threading.Lock()
# Tokens allowed beyond ``max_input_tokens`` for the instruction and the chat template around the article.
PROMPT_TOKEN_MARGIN = 96
# The variables that keep the Hub client and transformers offline, and the values huggingface_hub takes for "on".
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_TRUE = {"1", "ON", "YES", "TRUE"}


def thread_count() -> int:
    """Threads for model inference: ``$SUMMBIAS_TORCH_THREADS`` capped at the number of CPU cores."""
    return max(1, min(os.cpu_count() or 1, int(os.environ.get("SUMMBIAS_TORCH_THREADS", "64"))))


def offline_variable() -> str | None:
    """``NAME=value`` of the variable that keeps the Hub offline here, or None when none does."""
    for name in OFFLINE_VARIABLES:
        value = os.environ.get(name, "")
        if value.strip().upper() in _TRUE:
            return f"{name}={value.strip()}"
    return None


def not_loadable(model: str, error: BaseException) -> SummarizerError:
    """The one line for a model that could not be loaded (or its folder read): the same whatever went wrong, so it
    neither echoes the files' contents (a config's values, JSON or pickle details) nor tells an existing path from a
    missing one; the cause goes to the server's log and stays the error's ``__cause__`` (``--debug``)."""
    logger.warning("could not load model %r: %s", model, one_line(error))
    offline = offline_variable()
    where = (f"The Hub is offline here ({offline}): use a local folder with the model files, or a model already in "
             "the Hugging Face cache." if offline else
             "Give the id of a model on the Hugging Face Hub (with the token it needs) or the folder of a model's "
             "files; the server's log says what failed.")
    return SummarizerError(f"could not load model '{model}': no model could be loaded from it. {where}")


def hub_token(token_env: str | None) -> str | bool | None:
    """The ``token`` argument of transformers' loaders: None (the Hub client's default: ``HF_TOKEN`` or the login)
    when no variable is named, else the named variable's value, or False (no token at all) when it names none or
    holds none."""
    if token_env is None:
        return None
    return (os.environ.get(token_env) or False) if token_env else False


@functools.lru_cache(maxsize=4)
def load_model(model: str, revision: str | None = None, token: str | bool | None = None) -> tuple[Any, Any, bool]:
    """Load (model, tokenizer, is_encoder_decoder) once per process, sending the Hub ``token`` (``hub_token``);
    raise ``SummarizerError`` (``not_loadable``) when it cannot be loaded."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()

    torch.set_num_threads(thread_count())
    try:
        config = AutoConfig.from_pretrained(model, revision=revision, token=token)
        tokenizer = AutoTokenizer.from_pretrained(model, revision=revision, token=token)
        model_class = AutoModelForSeq2SeqLM if config.is_encoder_decoder else AutoModelForCausalLM
        loaded = model_class.from_pretrained(model, revision=revision, token=token, dtype=torch.float32)
    except Exception as error:  # whatever the files or the Hub raise (OSError, ValueError, JSON, UnpicklingError,
        # PermissionError, safetensors' errors …) becomes one line that does not echo it
        raise not_loadable(model, error) from error
    loaded.eval()
    if not config.is_encoder_decoder:
        tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return loaded, tokenizer, bool(config.is_encoder_decoder)


def folder_fingerprint(folder: Path) -> str:
    """A revision for a local model folder: a hash of its config files and of each file's name and size."""
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if path.is_file():
            digest.update(path.name.encode())
            digest.update(str(path.stat().st_size).encode())
            if path.suffix == ".json":
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class HuggingFaceSummarizer(Summarizer):
    """A transformers model by Hub id or local path, batched, greedy by default, deterministic on CPU."""

    prompt_version = PROMPT_VERSION
    default_batch_size = 4
    # Token limits above these are taken for typos (no summarizer in the papers used more than a few hundred).
    parameter_spec = {
        **PROMPT_PARAMETERS,
        "revision": Param(str, optional=True),
        "max_new_tokens": Param(int, minimum=1, maximum=32_768, optional=True),
        "num_beams": Param(int, minimum=1, maximum=64, optional=True),
        "max_input_tokens": Param(int, minimum=1, maximum=1_048_576),
        "batch_size": Param(int, minimum=1, maximum=4096),
        "prompt": Param(PromptSettings, optional=True),
        "token_env": Param(str, optional=True),
    }

    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        revision: str | None = None,
        max_new_tokens: int | None = None,
        num_beams: int | None = None,
        max_input_tokens: int = 1024,
        batch_size: int = 4,
        prompt: PromptSettings | None = None,
        token_env: str | None = None,
        **prompt_options: Any,
    ):
        self.model_id = model
        self.name = name or f"hf:{model}"
        self.model_revision = revision
        self.max_new_tokens = None if max_new_tokens is None else int(max_new_tokens)
        self.num_beams = None if num_beams is None else int(num_beams)
        self.max_input_tokens = int(max_input_tokens)
        self.default_batch_size = int(batch_size)
        self.prompt = prompt or PromptSettings(**prompt_options)
        # Only the variable's name is kept (and not recorded in ``parameters``: a token changes no summary).
        self.token_env = token_env
        self._revision: str | None = None

    def _load(self) -> tuple[Any, Any, bool]:
        with _LOAD_LOCK:
            return load_model(self.model_id, self.model_revision, hub_token(self.token_env))

    def revision(self) -> str:
        if self._revision is None:
            local = Path(self.model_id)
            try:
                fingerprint = folder_fingerprint(local) if local.is_dir() else None
            except OSError as error:  # a folder this process may not read (hf:/proc/1/root)
                raise not_loadable(self.model_id, error) from error
            if fingerprint is not None:
                self._revision = fingerprint
            else:
                model, _, _ = self._load()
                self._revision = getattr(model.config, "_commit_hash", None) or self.model_revision or "unknown"
        return self._revision

    def generation_settings(self, model: Any, encoder_decoder: bool) -> dict[str, Any]:
        """The generation arguments used: model defaults for seq2seq, greedy decoding for causal LMs."""
        settings: dict[str, Any] = {}
        if not encoder_decoder:
            settings.update(do_sample=False, num_beams=1, max_new_tokens=128)
        if self.max_new_tokens is not None:
            settings["max_new_tokens"] = self.max_new_tokens
        if self.num_beams is not None:
            settings["num_beams"] = self.num_beams
        return settings

    def parameters(self) -> dict[str, Any]:
        return {
            "model": self.model_id,
            "max_new_tokens": self.max_new_tokens,
            "num_beams": self.num_beams,
            "max_input_tokens": self.max_input_tokens,
            "prompt": vars(self.prompt),
        }

    def summarize_batch(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        return self._generate_hf(inputs, None)

    def summarize_batch_reporting(self, inputs: Sequence[Input], on_finished: ItemsFinished) -> list[SummaryOutcome]:
        """``summarize_batch`` with each input reported when its generation emits an end token (the batch goes on
        decoding padding for it); inputs that reach ``max_new_tokens`` are reported when the batch ends."""
        return self._generate_hf(inputs, on_finished)

    def _generate_hf(self, inputs: Sequence[Input], on_finished: ItemsFinished | None) -> list[SummaryOutcome]:
        import torch

        model, tokenizer, encoder_decoder = self._load()
        started = time.perf_counter()
        prompt_ids: list[str | None] = []
        input_cut: list[bool] = []
        if encoder_decoder:
            texts = [item.text for item in inputs]
            prompt_ids = [None] * len(inputs)
            input_cut = [len(tokenizer(item.text).input_ids) > self.max_input_tokens for item in inputs]
        else:
            texts, prompt_ids, input_cut = self.causal_prompts(tokenizer, inputs)
        encoded = tokenizer(texts, return_tensors="pt", padding=True, truncation=True,
                            max_length=self.max_input_tokens + PROMPT_TOKEN_MARGIN, add_special_tokens=encoder_decoder)
        settings = self.generation_settings(model, encoder_decoder)
        stops = stop_ids(model.generation_config, tokenizer)
        watch = None
        beams = settings.get("num_beams") or getattr(model.generation_config, "num_beams", 1) or 1
        if on_finished is not None and beams == 1:  # with beams, rows are hypotheses, not inputs
            from transformers import StoppingCriteriaList

            # Decoder tokens start after the prompt for a causal LM, after the decoder start token for seq2seq.
            watch = FinishedRows(1 if encoder_decoder else encoded["input_ids"].shape[1], stops, on_finished,
                                 len(inputs))
            settings_used = {**settings, "stopping_criteria": StoppingCriteriaList([watch])}
        else:
            settings_used = settings
        try:
            with torch.inference_mode():
                output = model.generate(**encoded, **settings_used, pad_token_id=tokenizer.pad_token_id)
        except (RuntimeError, ValueError) as error:
            raise SummarizerError(f"{self.name}: generation failed ({str(error).splitlines()[0]})") from None
        if watch is not None:
            watch.report_rest()
        elif on_finished is not None:
            on_finished(len(inputs))
        if not encoder_decoder:
            output = output[:, encoded["input_ids"].shape[1]:]
        hit_limit = self._hit_token_limit(output, settings, stops)
        generation = {**model.generation_config.to_diff_dict(), **settings}
        generation.pop("transformers_version", None)
        return self.finish_summaries(inputs, tokenizer.batch_decode(output, skip_special_tokens=True), hit_limit,
                                     prompt_ids, input_cut, generation, started)

    def causal_prompts(self, tokenizer: Any, inputs: Sequence[Input]) -> tuple[list[str], list[str | None], list[bool]]:
        """The prompt texts for a causal LM (chat template applied), their prompt ids, and which articles were cut."""
        texts: list[str] = []
        prompt_ids: list[str | None] = []
        input_cut: list[bool] = []
        for item in inputs:
            # As Steen & Markert's code does, the article (not the whole prompt) is cut to the input budget, so a
            # long article never pushes the instruction or the chat template's answer cue out of the prompt.
            article, was_cut = self._fit_article(tokenizer, item)
            input_cut.append(was_cut)
            message, prompt_id = build_prompt(item, self.prompt, text=article)
            prompt_ids.append(prompt_id)
            if tokenizer.chat_template:
                texts.append(tokenizer.apply_chat_template(
                    [{"role": "user", "content": message}], add_generation_prompt=True, tokenize=False
                ))
            else:
                texts.append(message + "\n\nSummary:")
        return texts, prompt_ids, input_cut

    def finish_summaries(self, inputs: Sequence[Input], decoded: Sequence[str], hit_limit: Sequence[bool],
                         prompt_ids: Sequence[str | None], input_cut: Sequence[bool], generation: dict[str, Any],
                         started: float) -> list[SummaryOutcome]:
        """Summaries from decoded generations: cleaned, cut to complete sentences where the token limit was hit,
        with the meta every engine records (``generation``, ``prompt_id``, ``input_truncated``, ``truncated``)."""
        texts_out = [clean_output(text).strip() for text in decoded]
        cut_positions = [index for index, hit in enumerate(hit_limit) if hit]
        dropped = [""] * len(texts_out)
        for index, completed in zip(cut_positions, complete_sentences([texts_out[i] for i in cut_positions]),
                                    strict=True):
            texts_out[index], dropped[index] = completed.text, completed.dropped
        elapsed = (time.perf_counter() - started) / max(1, len(inputs))
        base_meta = self.meta()
        return [
            Summary(item.id, self.name, text, meta={
                **base_meta, "generation": generation, "prompt_id": prompt_id,
                "input_truncated": was_cut, "truncated": hit, **({"dropped_tail": tail} if hit else {}),
                "seconds": round(elapsed, 4),
            })
            for item, text, prompt_id, was_cut, hit, tail
            in zip(inputs, texts_out, prompt_ids, input_cut, hit_limit, dropped, strict=True)
        ]

    def _fit_article(self, tokenizer: Any, item: Input) -> tuple[str | None, bool]:
        """The article cut to ``max_input_tokens`` tokens (None for unit inputs, whose prompt is built from units)."""
        if item.units:
            return None, False
        ids = tokenizer(item.text, add_special_tokens=False).input_ids
        if len(ids) <= self.max_input_tokens:
            return item.text, False
        return tokenizer.decode(ids[: self.max_input_tokens], skip_special_tokens=True), True

    @staticmethod
    def _hit_token_limit(output: Any, settings: dict[str, Any], stop_ids: set[int]) -> list[bool]:
        """Which generations stopped because they reached ``max_new_tokens`` rather than an end-of-sequence token."""
        limit = settings.get("max_new_tokens")
        if not limit:
            return [False] * len(output)
        return [len(row) >= limit and not stop_ids.intersection(int(token) for token in row) for row in output]


class FinishedRows:
    """A stopping criterion (called like transformers' ``StoppingCriteria``; not a subclass, so that transformers is
    imported only when a model runs) that stops nothing: it tells ``on_finished`` of each batch row that has emitted an end
    token, so a batch's progress moves per summary instead of when the whole batch ends."""

    def __init__(self, start: int, stops: set[int], on_finished: ItemsFinished, rows: int):
        self.start, self.stops, self.on_finished, self.rows = start, sorted(stops), on_finished, rows
        self.reported: set[int] = set()

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        if input_ids.shape[0] != self.rows:  # not one row per input: left to report_rest
            return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        generated = input_ids[:, self.start:]
        ended = torch.isin(generated, torch.tensor(self.stops, device=generated.device)).any(dim=1)
        for row in ended.nonzero().flatten().tolist():
            if row not in self.reported:
                self.reported.add(row)
                self.on_finished(1)
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)

    def report_rest(self) -> None:
        """The batch has ended: report the rows that stopped at the token limit (no end token)."""
        rest = self.rows - len(self.reported)
        if rest > 0:
            self.reported.update(range(self.rows))
            self.on_finished(rest)


def stop_ids(generation_config: Any, tokenizer: Any) -> set[int]:
    """Token ids that end a generation: the model's end-of-sequence id(s) and the tokenizer's."""
    configured = generation_config.eos_token_id
    ids = set(configured if isinstance(configured, list) else [configured] if configured is not None else [])
    if tokenizer.eos_token_id is not None:
        ids.add(tokenizer.eos_token_id)
    return ids


register(r"hf:(.+)", "hf:<model id or path>", HuggingFaceSummarizer, from_name=lambda match: {"model": match.group(1)})
