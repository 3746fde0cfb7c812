"""The OpenAI-compatible endpoints a browser may use, from a file the operator writes (issue 23).

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
```
"""

from __future__ import annotations

import os
import re
import tomllib
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bias_core.safety.errors import InputError
from bias_core.safety.redact import redact_url, redact_urls
from bias_core.safety.validation import Param, ParamError

ENV = "SUMMBIAS_ENDPOINTS"
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HTTP_URL = re.compile(r"^https?://[^/?#\s]+(/[^\s]*)?$")
_ENDPOINT_KEYS = ("name", "base_url", "api_key_env", "models")


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


def browser_endpoints(path: str | os.PathLike | None = None) -> list[Endpoint]:
    """The endpoints of ``path`` (default: the file ``$SUMMBIAS_ENDPOINTS`` names; none when it is unset).

    Raises ``InputError`` (one line naming the file and the entry) for a file that cannot be read or a bad entry: a
    base URL that is not http(s), holds credentials (they belong in the variable ``api_key_env`` names) or repeats;
    a variable name that is not one; a duplicate name; an unknown key.
    """
    if path is None:
        path = os.environ.get(ENV) or None
        if path is None:
            return []
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(source, f"cannot read the endpoints file ({error.__class__.__name__}: {error})",
                         hint=f"fix or unset {ENV}") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(source, f"not valid TOML ({error})", hint=f"fix or unset {ENV}") from None
    unknown = sorted(set(data) - {"endpoints"})
    if unknown:
        raise InputError(source, f"unknown key {', '.join(unknown)}; the file holds [[endpoints]] tables only")
    entries = data.get("endpoints", [])
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise InputError(source, "endpoints must be [[endpoints]] tables")
    endpoints = [_endpoint(entry, source, index) for index, entry in enumerate(entries, 1)]
    for what in ("name", "base_url"):
        values = [getattr(endpoint, what) for endpoint in endpoints]
        repeated = sorted({value for value in values if values.count(value) > 1})
        if repeated:
            raise InputError(source, f"the {what} {redact_url(repeated[0])} is listed twice")
    return endpoints


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
