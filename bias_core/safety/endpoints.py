"""The OpenAI-compatible endpoints and the Hugging Face models a browser may use, from a file the operator writes
(issues 23 and 30).

A visitor of the app never types a base URL or the name of an environment variable: the server would send that
variable's value to that URL, and the documents with it. The app's pages offer the endpoints of the TOML file that
``$SUMMBIAS_ENDPOINTS`` names, and nothing else; with no file they offer none. Each endpoint names its key's
variable (or none), so no other variable of the server can be sent anywhere. The command line, run by the operator,
is not limited by this file.

```toml
[[endpoints]]
name = "vLLM on the lab server"            # what the browser shows
base_url = "http://10.0.0.5:8000/v1"
api_key_env = "VLLM_API_KEY"               # optional: the variable that holds this endpoint's key; none: no key
models = ["meta-llama/Llama-3.1-8B-Instruct"]  # optional: the model names a browser may pick; none: any it types

[[models]]
model = "facebook/bart-large-cnn"          # a Hugging Face Hub id, or the path of a model folder on the server
name = "BART large CNN"                    # optional: what the browser shows; none: the model itself
token_env = "HF_LAB_TOKEN"                 # optional: the variable that holds the Hub token it may use; none: no token
```

A browser picks a model by its name and the server loads the entry's model, sending the Hub only the token of the
entry's variable (none without one, never the server's ``HF_TOKEN`` or login); it never sends a model id or a path.
The file is read as an operator file (``bias_core.safety.operator_files``): a regular file of at most
``ENDPOINTS_MAX_BYTES``, nested at most ``NESTING_MAX`` deep.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

from bias_core.safety.errors import InputError
from bias_core.safety.operator_files import load_operator_file
from bias_core.safety.redact import redact_url, redact_urls
from bias_core.safety.validation import Param, ParamError

ENV = "SUMMBIAS_ENDPOINTS"
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HTTP_URL = re.compile(r"^https?://[^/?#\s]+(/[^\s]*)?$")
_ENDPOINT_KEYS = ("name", "base_url", "api_key_env", "models")
_MODEL_KEYS = ("model", "name", "token_env")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# An endpoints file lists a few endpoints and models; one past this size is not one.
ENDPOINTS_MAX_BYTES = 1_000_000


def http_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an endpoint's base URL, in a few words, or None when it can: not http(s), no host,
    white space, a bad port or an unclosed IPv6 bracket (``http://[::1``): what the HTTP client would otherwise
    refuse only at the first request, after a run was created. Parsed by ``urllib.parse`` and by ``httpx`` (the
    client's own parser); the words never hold the URL's credentials."""
    if any(character.isspace() for character in url):
        return "it holds white space"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 -- reading it checks the port
    except ValueError as error:
        return redact_urls(str(error))
    if parts.scheme not in ("http", "https"):
        return "it must start with http:// or https://"
    if not parts.hostname:
        return "it names no host"
    import httpx  # imported where used: the openai client's HTTP library

    try:
        httpx.URL(url)
    except httpx.InvalidURL as error:
        return redact_urls(str(error))
    return None


@dataclass(frozen=True)
class BaseUrlParam(Param):
    """A base URL parameter: text that ``http_url_problem`` accepts, refused (redacted) before anything runs."""

    def check(self, name: str, value: object) -> object:
        value = super().check(name, value)
        problem = None if value is None else http_url_problem(str(value))
        if problem:
            raise ParamError(f"{name} = {redact_url(str(value))!r} is not an http:// or https:// URL ({problem})")
        return value


@dataclass(frozen=True)
class Endpoint:
    """One endpoint a browser may choose."""

    name: str
    base_url: str
    api_key_env: str = ""  # "": no key is sent
    models: tuple[str, ...] = ()  # empty: any model name

    def summarizer_params(self) -> dict[str, Any]:
        """The ``openai:`` summarizer's parameters for this endpoint (the variable always given, so the summarizer
        never falls back to ``OPENAI_API_KEY`` or ``OPENAI_BASE_URL``)."""
        return {"base_url": self.base_url, "api_key_env": self.api_key_env}

    def allows_model(self, model: str) -> bool:
        return bool(model.strip()) and (not self.models or model in self.models)


@dataclass(frozen=True)
class Model:
    """One Hugging Face model a browser may choose (a ``[[models]]`` entry)."""

    name: str
    model: str  # a Hub id or the path of a model folder on the server
    token_env: str = ""  # "": no token is sent

    @property
    def summarizer_name(self) -> str:
        return f"hf:{self.model}"

    def summarizer_params(self) -> dict[str, Any]:
        """The ``hf:`` summarizer's parameters for this model: the token's variable always given (``""``: none), so
        the model is never loaded with the server's own ``HF_TOKEN`` or login."""
        return {"token_env": self.token_env}


@dataclass(frozen=True)
class OperatorChoices:
    """What the operator's file opens to the browser."""

    endpoints: list[Endpoint]
    models: list[Model]


def browser_endpoints(path: str | os.PathLike | None = None) -> list[Endpoint]:
    """The endpoints of ``path`` (default: the file ``$SUMMBIAS_ENDPOINTS`` names; none when it is unset).

    Raises ``InputError`` (one line naming the file and the entry) for a file that cannot be read or a bad entry: a
    base URL that is not http(s), holds credentials (they belong in the variable ``api_key_env`` names) or repeats;
    a variable name that is not one; a duplicate name; an unknown key (``operator_choices``).
    """
    return operator_choices(path).endpoints


def browser_models(path: str | os.PathLike | None = None) -> list[Model]:
    """The Hugging Face models of ``path`` (default: the file ``$SUMMBIAS_ENDPOINTS`` names; none when it is unset);
    errors as ``browser_endpoints``."""
    return operator_choices(path).models


def operator_choices(path: str | os.PathLike | None = None) -> OperatorChoices:
    """The endpoints and models of ``path`` (default: the file ``$SUMMBIAS_ENDPOINTS`` names; none when it is
    unset), every entry checked; one ``InputError`` line naming the file and the entry for the first problem."""
    if path is None:
        path = os.environ.get(ENV) or None
        if path is None:
            return OperatorChoices([], [])
    source = str(path)
    data = load_operator_file(path, what="endpoints file", max_bytes=ENDPOINTS_MAX_BYTES, hint=f"fix or unset {ENV}")
    unknown = sorted(set(data) - {"endpoints", "models"})
    if unknown:
        raise InputError(source, f"unknown key {', '.join(unknown)}; the file holds [[endpoints]] and [[models]] "
                                 "tables only")
    endpoints = [_endpoint(entry, source, index) for index, entry in enumerate(_tables(data, "endpoints", source), 1)]
    _refuse_repeats(source, endpoints, ("name", "base_url"))
    models = [_model(entry, source, index) for index, entry in enumerate(_tables(data, "models", source), 1)]
    _refuse_repeats(source, models, ("name", "model"))
    return OperatorChoices(endpoints, models)


def _tables(data: dict[str, Any], key: str, source: str) -> list[dict[str, Any]]:
    entries = data.get(key, [])
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise InputError(source, f"{key} must be [[{key}]] tables")
    return entries


def _refuse_repeats(source: str, entries: list[Any], fields: tuple[str, ...]) -> None:
    for what in fields:
        values = [getattr(entry, what) for entry in entries]
        repeated = sorted({value for value in values if values.count(value) > 1})
        if repeated:
            raise InputError(source, f"the {what} {redact_url(repeated[0])} is listed twice")


def _model(entry: dict[str, Any], source: str, index: int) -> Model:
    row = f"model {index}"
    unknown = sorted(set(entry) - set(_MODEL_KEYS))
    if unknown:
        raise InputError(source, f"unknown key {', '.join(unknown)} (known: {', '.join(_MODEL_KEYS)})", row=row)
    model, token = entry.get("model"), entry.get("token_env", "")
    if not isinstance(model, str) or not model.strip() or _CONTROL.search(model):
        raise InputError(source, "model must be a Hugging Face Hub id or the path of a model folder", row=row)
    name = entry.get("name", model.strip())
    if not isinstance(name, str) or not name.strip() or _CONTROL.search(name):
        raise InputError(source, "name must be a non-empty line of text", row=row)
    if not isinstance(token, str) or token and not _VARIABLE.match(token):
        raise InputError(source, f"token_env = {token!r} is not the name of an environment variable", row=row)
    return Model(name.strip(), model.strip(), token)


def _endpoint(entry: dict[str, Any], source: str, index: int) -> Endpoint:
    row = f"endpoint {index}"
    unknown = sorted(set(entry) - set(_ENDPOINT_KEYS))
    if unknown:
        raise InputError(source, f"unknown key {', '.join(unknown)} (known: {', '.join(_ENDPOINT_KEYS)})", row=row)
    name, base_url = entry.get("name"), entry.get("base_url")
    key, models = entry.get("api_key_env", ""), entry.get("models", [])
    if not isinstance(name, str) or not name.strip():
        raise InputError(source, "name must be a non-empty string", row=row)
    problem = http_url_problem(base_url) if isinstance(base_url, str) else "not text"
    if not isinstance(base_url, str) or not _HTTP_URL.match(base_url) or problem:
        raise InputError(source, f"base_url = {redact_url(str(base_url))!r} is not an http:// or https:// URL"
                         + (f" ({problem})" if problem else ""), row=row)
    if redact_url(base_url) != base_url:
        raise InputError(source, f"base_url = {redact_url(base_url)!r} holds credentials",
                         row=row, hint="put the key in an environment variable and name it in api_key_env")
    if not isinstance(key, str) or key and not _VARIABLE.match(key):
        raise InputError(source, f"api_key_env = {key!r} is not the name of an environment variable", row=row)
    if not isinstance(models, list) or not all(isinstance(model, str) and model.strip() for model in models):
        raise InputError(source, "models must be a list of model names", row=row)
    return Endpoint(name.strip(), base_url, key, tuple(models))
