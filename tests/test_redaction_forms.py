"""URL forms that carried a credential past the redaction (issue 30): a percent-encoded parameter name, a path
parameter, and white space or a control character inside the userinfo of a URL in free text — and the forms tried
next (other encodings of a name, an encoded "=", a "/" in the password, a tab in a query value). A URL without
credentials still comes back unchanged, character for character."""

from __future__ import annotations

import logging

import pytest

from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.safety.errors import one_line
from bias_core.safety.redact import RedactingFilter, redact_url, redact_urls
from bias_core.summarize.openai_compat import server_message

SECRET = "s3cr3t-do-not-leak"


@pytest.mark.parametrize(("url", "shown"), [
    # a percent-encoded name: %6B is "k", so the server reads "key"
    (f"http://host/v1?%6Bey={SECRET}", "http://host/v1?%6Bey=***"),
    (f"http://host/v1?%6bey={SECRET}", "http://host/v1?%6bey=***"),  # lower-case hex
    (f"http://host/v1?api-%6B%65%79={SECRET}&v=1", "http://host/v1?api-%6B%65%79=***&v=1"),
    (f"http://host/v1?%256Bey={SECRET}", "http://host/v1?%256Bey=***"),  # encoded twice
    (f"http://host/v1?%25256Bey={SECRET}", "http://host/v1?%25256Bey=***"),  # three times
    (f"http://host/v1?%u006Bey={SECRET}", "http://host/v1?%u006Bey=***"),  # IIS's %uXXXX
    (f"http://host/v1?to%6Ben={SECRET}#x", "http://host/v1?to%6Ben=***#x"),
    (f"http://host/v1?k%20ey={SECRET}", "http://host/v1?k%20ey=***"),  # white space inside the name
    (f"http://host/v1?key%3D{SECRET}", "http://host/v1?key%3D***"),  # an encoded "="
    (f"http://host/v1?a=1;%73ig={SECRET}", "http://host/v1?a=1;%73ig=***"),  # ";" between query parameters
    (f"http://host/v1#%74oken={SECRET}", "http://host/v1#%74oken=***"),  # in the fragment
    # a path parameter: ";name=value" in the path
    (f"http://host/v1;jsessionid={SECRET}/chat", "http://host/v1;jsessionid=***/chat"),
    (f"http://host/v1;token={SECRET}", "http://host/v1;token=***"),
    (f"http://host/v1;v=2;auth={SECRET}?page=2", "http://host/v1;v=2;auth=***?page=2"),
    (f"http://host/a;%6Bey={SECRET};b=1/c", "http://host/a;%6Bey=***;b=1/c"),
    (f"http://host/v1;api_key={SECRET}%2Fmore/x", "http://host/v1;api_key=***/x"),  # an encoded "/" in the value
    # an unescaped "/" in the password: no client reads "user:pa" as host and port, so the userinfo runs to the "@"
    (f"http://user:pa/{SECRET}@host/v1", "http://***@host/v1"),
    # a second URL inside the first: its userinfo too
    (f"http://host/v1?next=http://user:{SECRET}@other/cb", "http://host/v1?next=http://***@other/cb"),
])
def test_a_credential_in_another_url_form_is_masked(url, shown):
    assert redact_url(url) == shown
    assert SECRET not in redact_url(url)


@pytest.mark.parametrize("url", [
    "http://host/v1;version=2/chat?page=3",
    "http://host/a%2Fb/c?q=%6Eame&lang=en#part%3D2",
    "http://host:8000/v1;jsessionid=/x",  # an empty value hides nothing
    "http://host/v1?monkey%3D",
    "http://[::1]:8000/v1?x=%3D%26",
    "http://host/users/@me",
    "http://HOST:PORT/v1",
])
def test_a_url_without_credentials_comes_back_unchanged(url):
    assert redact_url(url) == url
    assert redact_urls(f"see {url} now") == f"see {url} now"


@pytest.mark.parametrize("gap", ["\t", "\n", "\r\n", " ", "\x0b", "\x00", "\x1f", "\x7f"])
def test_white_space_or_a_control_character_in_the_userinfo_of_a_url_in_text_is_masked(gap):
    text = f"POST http://reader:{SECRET[:6]}{gap}{SECRET[6:]}@host/v1 failed; see https://docs.example/x."
    assert redact_urls(text) == "POST http://***@host/v1 failed; see https://docs.example/x."


def test_a_tab_in_a_query_value_of_a_url_in_text_is_masked_to_its_end():
    text = f"GET http://host/v1?key={SECRET[:6]}\t{SECRET[6:]}&v=1 failed"
    assert redact_urls(text) == "GET http://host/v1?key=***&v=1 failed"


def test_a_url_glued_to_another_does_not_hide_the_others_userinfo():
    assert redact_urls(f"http://host/a,http://user:{SECRET}@other/b") == "http://host/a,http://***@other/b"


def test_an_error_line_a_log_line_and_a_servers_message_carry_none_of_these_forms():
    text = (f"endpoint http://reader:{SECRET[:6]}\n{SECRET[6:]}@host/v1;jsessionid={SECRET}/x?%6Bey={SECRET} "
            f"answered 500; query http://host/v1?key={SECRET[:6]}\t{SECRET[6:]} too")
    line = one_line(ValueError(text))
    assert SECRET[:6] not in line and SECRET[6:] not in line, line
    assert line.startswith("ValueError: endpoint http://***@host/v1;jsessionid=***/x?%6Bey=*** answered 500")
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "%s", (text,), None)
    RedactingFilter().filter(record)
    assert SECRET[:6] not in record.getMessage() and SECRET[6:] not in record.getMessage()
    message = server_message({"message": text}, limit=1000)
    assert SECRET[:6] not in message and SECRET[6:] not in message, message


def test_the_stored_run_config_carries_none_of_these_forms():
    config = AuditConfig(corpus=CorpusSpec("x.jsonl"), summarizers=[StageSpec("openai:m", {
        "base_url": f"http://host/v1;jsessionid={SECRET}/?%6Bey={SECRET}"})])
    assert config.to_dict()["summarizers"][0]["params"]["base_url"] == "http://host/v1;jsessionid=***/?%6Bey=***"


def test_a_long_run_of_letters_in_text_is_redacted_in_linear_time():
    import time

    text = "a" * 200_000 + " http://user:pw@host/v1"
    started = time.perf_counter()
    assert redact_urls(text).endswith(" http://***@host/v1")
    assert time.perf_counter() - started < 2
