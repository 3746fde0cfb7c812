"""``openai:<model>``: any OpenAI-compatible chat endpoint (vLLM, SGLang, Ollama, OpenAI) (METHODS §2).

The API key is read from an environment variable whose *name* is a parameter (empty: no key is sent); the key
itself is never stored, hashed into the cache key, logged or put in an error message, and credentials in the base URL
(``http://user:secret@host/v1?api-key=…``) are recorded and shown redacted (``bias_core.safety.redact``). Redirects are
not followed: a request goes to the base URL's server or nowhere, so a prompt and its key never reach another address.
Each request must be answered completely within ``timeout`` seconds and in at most 1 MiB (``bounded_http``): a
server that trickles its answer, or sends more than any summary needs, gets a failure, never a summary or a cache
entry. Requests run concurrently up to a limit; the ``openai`` client retries timeouts, connection errors and 5xx
answers with exponential backoff. The requests of an audit go through one continuous pool of ``concurrency``: a new
request starts as soon as any answer arrives (``POOL_BATCH`` inputs per batch; ``benchmarks/endpoint_pool.py``). Each
answer is reported with its summary as it arrives, so the caller can keep it at once; interrupted (Ctrl-C, SIGTERM), a
batch sends no further request and abandons those in flight.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from bias_core.common.records import Input, Summary
from bias_core.safety.endpoints import BaseUrlParam
from bias_core.safety.redact import redact_url, redact_urls
from bias_core.safety.validation import SEED
from bias_core.summarize.base import (
    ItemsFinished,
    Param,
    Summarizer,
    SummaryFailure,
    SummaryOutcome,
    clean_output,
    register,
)
from bias_core.summarize.prompts import PROMPT_PARAMETERS, PROMPT_VERSION, PromptSettings, build_prompt
from bias_core.summarize.rate_limits import (
    REFUSED_FOR_NOW,
    WAIT_NOTICE_SECONDS,
    AdaptiveConcurrency,
    WaitNotices,
    refusal_reason,
    retry_after,
)

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
# Inputs sent through one continuous pool of requests (``OpenAICompatibleSummarizer.default_batch_size``).
POOL_BATCH = 4096
# No summary needs more tokens than this; a larger value is taken for a typo (and would tie up the endpoint).
MAX_TOKENS = Param(int, minimum=1, maximum=32_768)


@dataclass(frozen=True)
class Refusal:
    """An answer that refuses for now (``rate_limits.REFUSED_FOR_NOW``): its status and the Retry-After it asked."""

    status: int
    asked: float | None


def usage_meta(usage: Any) -> dict[str, Any]:
    """The tokens an answer's ``usage`` reports, for the summary's meta (``{}`` where the server reports none)."""
    counts = {}
    for field in ("prompt_tokens", "completion_tokens"):
        value = getattr(usage, field, None)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            counts[field] = value
    return {"usage": counts} if counts else {}


def server_message(body: Any, limit: int = 200) -> str:
    """What an error answer says (``{"error": {"message": …}}`` of OpenAI, Ollama and llama.cpp, ``{"message": …}`` of
    vLLM: "model 'x' not found, try pulling it first"), on one line, cut to ``limit`` characters, credentials in any
    URL redacted; "" when it says nothing readable. Shown as plain text, like every failure."""
    message = body.get("message") if isinstance(body, dict) else body
    if not isinstance(message, str):
        return ""
    # Redacted before control characters become spaces: a tab inside a URL is part of it (urllib drops it).
    text = " ".join("".join(c if c.isprintable() else " " for c in redact_urls(message)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def leave_refusals_to_the_pool(response: Any) -> None:
    """An httpx response hook: the openai client does not resend a refusal for now itself (its retries would hold a
    place of the pool through the wait, unseen); ``_one`` resends it, with the pool's limit and the wait shown."""
    if response.status_code in REFUSED_FOR_NOW:
        response.headers["x-should-retry"] = "false"


class OpenAICompatibleSummarizer(Summarizer):
    """Chat-completion summaries from an OpenAI-compatible server."""

    prompt_version = PROMPT_VERSION
    parameter_spec = {
        **PROMPT_PARAMETERS,
        "base_url": BaseUrlParam(str, optional=True),
        "api_key_env": Param(str),
        "temperature": Param(float, minimum=0, maximum=2),  # the range the OpenAI API accepts
        "seed": SEED,
        "max_tokens": MAX_TOKENS,
        "timeout": Param(float, above=0, maximum=3600),
        "retries": Param(int, minimum=0, maximum=20),
        "concurrency": Param(int, minimum=1, maximum=256),
        # The longest one request waits, in all, while the endpoint refuses it for now (429, 503): a day at most.
        "patience": Param(float, minimum=0, maximum=86_400),
        "prompt": Param(PromptSettings, optional=True),
    }

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        seed: int = 0,
        max_tokens: int = 256,
        timeout: float = 60.0,
        retries: int = 3,
        concurrency: int = 4,
        patience: float = 600.0,
        prompt: PromptSettings | None = None,
        **prompt_options: Any,
    ):
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        # What is recorded and shown of the endpoint: only the HTTP client sees the URL's credentials.
        self.endpoint = redact_url(self.base_url)
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.seed = int(seed)
        self.max_tokens = int(max_tokens)
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.concurrency = max(1, int(concurrency))
        # One pool per batch: a request starts as soon as any answer arrives, and every answer is kept as it arrives
        # (``summarize_batch_reporting``). A batch boundary makes the pool wait for the batch's slowest answer, so
        # the batches are large (issue 31: batches of concurrency × 4 reached 63–67% of the endpoint's bound).
        self.default_batch_size = max(POOL_BATCH, self.concurrency * 4)
        self.prompt = prompt or PromptSettings(seed=self.seed, **prompt_options)
        self.patience = float(patience)
        self._client = None
        self._limits = None
        self._gate: AdaptiveConcurrency | None = None

    def parameters(self) -> dict[str, Any]:
        # The endpoint (without credentials) and the key's variable name are recorded; the key is not.
        return {
            "model": self.model,
            "base_url": self.endpoint,
            "api_key_env": self.api_key_env,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "prompt": vars(self.prompt),
        }

    def revision(self) -> str:
        return f"endpoint:{self.model}"

    def client(self):
        if self._client is None:
            from openai import DefaultHttpxClient, OpenAI

            from bias_core.summarize.bounded_http import RequestLimits  # imported where used, as openai is

            self._limits = RequestLimits(self.timeout)
            options = self._limits.client_options()
            options["event_hooks"]["response"].append(leave_refusals_to_the_pool)
            self._client = OpenAI(
                base_url=self.base_url,
                api_key=(os.environ.get(self.api_key_env) if self.api_key_env else None) or "not-set",
                timeout=self.timeout,
                max_retries=self.retries,
                http_client=DefaultHttpxClient(follow_redirects=False, timeout=self.timeout,
                                               **options),
            )
        return self._client

    def _one(self, item: Input, gate: AdaptiveConcurrency) -> SummaryOutcome:
        """One input's summary: sent when ``gate`` has a place for it, and sent again after a refusal for now (429,
        503) once the wait the server asked for, or a backoff, has passed — until ``patience`` seconds of waiting."""
        waited = 0.0
        attempt = 0
        while True:
            with gate.slot() as window:
                outcome = self._request(item)
            if not isinstance(outcome, Refusal):
                gate.answered()
                return outcome
            delay = gate.refused(outcome.status, outcome.asked, window, attempt)
            if waited + delay > self.patience:
                reason = refusal_reason(outcome.status)
                return self._failure(item, f"answered HTTP {outcome.status} ({reason}) {attempt + 1} times in "
                                           f"{waited:.0f} s of waiting; run the audit again to send it again")
            gate.wait(delay, outcome.status)
            waited += delay
            attempt += 1

    def _request(self, item: Input) -> SummaryOutcome | Refusal:
        import openai

        from bias_core.summarize.bounded_http import AnswerRefused, RequestLimits

        message, prompt_id = build_prompt(item, self.prompt)
        started = time.perf_counter()
        try:
            response = self.client().chat.completions.create(
                model=self.model,
                messages=[{"role": "user", "content": message}],
                temperature=self.temperature,
                seed=self.seed,
                max_tokens=self.max_tokens,
            )
            content = response.choices[0].message.content if response.choices else None
        except openai.APITimeoutError:
            return self._failure(item, f"timed out after {self.timeout:g} s ({self.retries} retries)")
        except openai.APIConnectionError as error:
            if isinstance(error.__cause__, AnswerRefused):
                return self._failure(item, f"{error.__cause__}, more than a summary needs; refused")
            if RequestLimits.timed_out(error.request):
                return self._failure(item, f"timed out after {self.timeout:g} s ({self.retries} retries)")
            return self._failure(item, "could not connect (is the server running and the base URL right?)")
        except openai.APIStatusError as error:
            if error.status_code in REFUSED_FOR_NOW:
                return Refusal(error.status_code, retry_after(error.response.headers))
            if 300 <= error.status_code < 400:
                return self._failure(item, f"answered HTTP {error.status_code}, a redirect, which is not followed "
                                           "— set base_url to the address the server redirects to")
            said = server_message(error.body)
            return self._failure(item, f"answered HTTP {error.status_code}" + (f": {said}" if said else ""))
        except (openai.OpenAIError, ValueError, KeyError, AttributeError, TypeError) as error:
            return self._failure(item, f"gave an invalid answer ({type(error).__name__})")
        if not isinstance(content, str):
            return self._failure(item, "returned no text")
        return Summary(item.id, self.name, clean_output(content).strip(), meta={
            **self.meta(), "prompt_id": prompt_id, "seconds": round(time.perf_counter() - started, 4),
            "system_fingerprint": getattr(response, "system_fingerprint", None),
            **usage_meta(getattr(response, "usage", None)),
        })

    def _failure(self, item: Input, problem: str) -> SummaryFailure:
        return SummaryFailure(item.id, self.name, f"endpoint {self.endpoint} {problem}")

    def summarize_batch(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        return self._requests(inputs, None)

    def summarize_batch_reporting(self, inputs: Sequence[Input], on_finished: ItemsFinished) -> list[SummaryOutcome]:
        """``summarize_batch`` with each response reported, with its outcome, as it arrives (in any order)."""
        return self._requests(inputs, on_finished)

    def _requests(self, inputs: Sequence[Input], on_finished: ItemsFinished | None) -> list[SummaryOutcome]:
        """One request per input, ``concurrency`` at a time. If anything interrupts the wait (Ctrl-C, SIGTERM: a
        ``KeyboardInterrupt``), the requests not yet sent are dropped and those in flight abandoned before it goes
        on, so a stopping process sends nothing more and does not wait for answers it will not keep."""
        try:  # made here, once: the request threads share it, and abandon_requests reaches all of their requests
            self.client()
        except Exception:  # noqa: BLE001 — each request then fails with its own one-line message (``_one``)
            logger.debug("the client for %s could not be made", self.endpoint, exc_info=True)
        self._gate = gate = AdaptiveConcurrency(self.concurrency, seed=self.seed)
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        futures = {pool.submit(self._one, item, gate): index for index, item in enumerate(inputs)}
        notices = WaitNotices(gate, self.on_wait)
        pending = set(futures)
        try:
            while pending:
                # Woken at least once a second, so a wait is shown (and counted down) while no answer arrives.
                finished, pending = wait(pending, timeout=WAIT_NOTICE_SECONDS, return_when=FIRST_COMPLETED)
                for future in finished:
                    outcome = future.result()
                    if on_finished is not None:
                        on_finished(1, {futures[future]: outcome})
                notices.update()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            self.abandon_requests()
            raise
        pool.shutdown()
        return [future.result() for future in futures]

    def abandon_requests(self) -> None:
        """Abandon every request in flight and refuse further ones of the current client (``bounded_http``); the
        next call opens a new client."""
        if self._limits is not None:
            self._limits.abandon()
        if self._gate is not None:
            self._gate.abandon()
        self._client = self._limits = self._gate = None


register(r"openai:(.+)", "openai:<model>", OpenAICompatibleSummarizer,
         from_name=lambda match: {"model": match.group(1)})
