"""The app never hands a server secret or the network to a visitor (issue 23): the endpoints a browser may use come
from the operator's file ($SUMMBIAS_ENDPOINTS), each with its own key variable; a redirect is never followed; a trap
server on another port sees no request and no secret from any page."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bias_core.common.records import Input
from bias_core.safety.endpoints import Endpoint, browser_endpoints
from bias_core.safety.errors import InputError
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from tests.conftest import launch_small_audit, open_app
from tests.test_openai_summarizer import SECRET
from tests.test_openai_summarizer import Endpoint as ChatEndpoint

SERVER_SECRET = "hf_server-secret-never-sent-42"


class Trap(BaseHTTPRequestHandler):
    """Records every request it gets (none is the expected number) and answers 200."""

    seen: list[dict] = []

    def log_message(self, *args):
        pass

    def _record(self):
        length = int(self.headers.get("Content-Length") or 0)
        Trap.seen.append({"path": self.path, "headers": dict(self.headers), "body": self.rfile.read(length)})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = _record


def serve(handler) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


@pytest.fixture
def servers(monkeypatch):
    """The configured endpoint (a fake chat server) and a trap on another port; a server secret in the environment."""
    Trap.seen.clear()
    ChatEndpoint.requests.clear()
    monkeypatch.setenv("SUMMBIAS_TEST_KEY", SECRET)
    monkeypatch.setenv("HF_TOKEN", SERVER_SECRET)
    chat, chat_url = serve(ChatEndpoint)
    trap, trap_url = serve(Trap)
    yield chat_url + "/v1", trap_url
    chat.shutdown()
    trap.shutdown()


def write_endpoints(tmp_path, monkeypatch, text: str):
    path = tmp_path / "endpoints.toml"
    path.write_text(text)
    monkeypatch.setenv("SUMMBIAS_ENDPOINTS", str(path))
    return path


def write_lab_endpoint(tmp_path, monkeypatch, chat_url: str):
    """The operator's file with one endpoint, "lab", whose key is in SUMMBIAS_TEST_KEY."""
    return write_endpoints(tmp_path, monkeypatch, f'''
[[endpoints]]
name = "lab"
base_url = "{chat_url}"
api_key_env = "SUMMBIAS_TEST_KEY"
''')


def test_the_endpoints_file_lists_what_the_browser_may_use(tmp_path, monkeypatch):
    write_endpoints(tmp_path, monkeypatch, '''
[[endpoints]]
name = "lab vLLM"
base_url = "http://10.0.0.5:8000/v1"
api_key_env = "VLLM_API_KEY"
models = ["llama3", "qwen"]

[[endpoints]]
name = "local ollama"
base_url = "http://127.0.0.1:11434/v1"
''')
    lab, local = browser_endpoints()
    assert lab == Endpoint("lab vLLM", "http://10.0.0.5:8000/v1", "VLLM_API_KEY", ("llama3", "qwen"))
    assert lab.allows_model("qwen") and not lab.allows_model("gpt-4o") and not lab.allows_model("")
    assert local.summarizer_params() == {"base_url": "http://127.0.0.1:11434/v1", "api_key_env": ""}
    assert local.allows_model("anything")
    monkeypatch.delenv("SUMMBIAS_ENDPOINTS")
    assert browser_endpoints() == []  # no file: the browser gets no endpoint at all


@pytest.mark.parametrize(("entry", "problem"), [
    ('name = "x"\nbase_url = "http://u:pw@h/v1"', "holds credentials"),
    ('name = "x"\nbase_url = "http://h/v1?api-key=abc"', "holds credentials"),
    ('name = "x"\nbase_url = "file:///etc/passwd"', "is not an http:// or https:// URL"),
    ('name = "x"\nbase_url = "http://h/v1"\napi_key_env = "A B"', "is not the name of an environment variable"),
    ('name = "x"\nbase_url = "http://h/v1"\nkey = "sk-1"', "unknown key key"),
    ('name = "x"\nbase_url = "http://h/v1"\nmodels = "llama3"', "models must be a list"),
    ('base_url = "http://h/v1"', "name must be a non-empty string"),
])
def test_a_bad_endpoint_entry_is_refused_in_one_line(tmp_path, entry, problem):
    path = tmp_path / "endpoints.toml"
    path.write_text(f"[[endpoints]]\n{entry}\n")
    with pytest.raises(InputError, match=problem) as error:
        browser_endpoints(path)
    assert str(path) in str(error.value) and "endpoint 1" in str(error.value) and "\n" not in str(error.value)
    assert "pw" not in str(error.value) and "abc" not in str(error.value)


def test_an_unreadable_or_repeated_endpoints_file_is_refused(tmp_path):
    path = tmp_path / "endpoints.toml"
    with pytest.raises(InputError, match="cannot read the endpoints file"):
        browser_endpoints(path)
    path.write_text("[[endpoints]\n")
    with pytest.raises(InputError, match="not valid TOML"):
        browser_endpoints(path)
    path.write_text('[[endpoints]]\nname = "a"\nbase_url = "http://h/v1"\n'
                    '[[endpoints]]\nname = "a"\nbase_url = "http://g/v1"\n')
    with pytest.raises(InputError, match="the name a is listed twice"):
        browser_endpoints(path)


class Redirect(BaseHTTPRequestHandler):
    """Answers every request with a 307 to the trap (another origin), as a hostile endpoint would."""

    target = ""

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(307)
        self.send_header("Location", Redirect.target + "/v1/chat/completions")
        self.send_header("Content-Length", "0")
        self.end_headers()


def test_a_redirect_to_another_origin_is_not_followed(servers, tmp_path):
    _, trap_url = servers
    Redirect.target = trap_url
    redirect, redirect_url = serve(Redirect)
    try:
        summarizer = get_summarizer("openai:m", base_url=redirect_url + "/v1", api_key_env="SUMMBIAS_TEST_KEY",
                                    retries=2)
        report = summarize_inputs(summarizer, [Input("i", "d", "TOP SECRET prompt text.")],
                                  cache=SummaryCache(tmp_path / "c.sqlite"))
    finally:
        redirect.shutdown()
    assert Trap.seen == []  # neither the prompt nor the key went to the other origin
    assert report.summaries == []
    assert report.failures[0].error == (f"endpoint {redirect_url}/v1 answered HTTP 307, a redirect, which is not "
                                        "followed — set base_url to the address the server redirects to")


def test_an_endpoint_without_a_key_variable_sends_no_server_variable(servers, tmp_path, monkeypatch):
    chat_url, _ = servers
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_SECRET)  # the summarizer's default variable is not read either
    summarizer = get_summarizer("openai:ok", base_url=chat_url, api_key_env="")
    report = summarize_inputs(summarizer, [Input("i", "d", "A short text.")], cache=SummaryCache(tmp_path / "c"))
    assert len(report.summaries) == 1
    assert ChatEndpoint.requests[0]["auth"] == "Bearer not-set"


def no_secret_reached_anyone(chat_requests, trap_requests) -> None:
    assert trap_requests == []
    assert all(SERVER_SECRET not in str(request) for request in chat_requests)


def test_the_summarize_page_offers_no_endpoint_without_the_operators_file(servers, monkeypatch):
    monkeypatch.delenv("SUMMBIAS_ENDPOINTS", raising=False)
    app = open_app("pages/summarize.py")
    app.selectbox(key="summarize_summarizer").set_value("OpenAI-compatible endpoint (openai:)").run()
    assert not app.exception
    assert app.text_input == []  # no base URL, no variable name, no model to type
    assert any("No endpoint is open to the browser" in caption.value for caption in app.caption)
    assert app.button[0].disabled


def test_the_summarize_page_sends_to_a_configured_endpoint_with_its_own_key_only(servers, tmp_path, monkeypatch):
    chat_url, trap_url = servers
    write_lab_endpoint(tmp_path, monkeypatch, chat_url)
    app = open_app("pages/summarize.py")
    app.selectbox(key="summarize_summarizer").set_value("OpenAI-compatible endpoint (openai:)").run()
    labels = [widget.label for widget in app.text_input]
    assert labels == ["Model name"]  # the URL and the key's variable are the operator's, not the visitor's
    assert app.selectbox(key="summarize_openai_endpoint").options == ["lab"]
    app.text_input(key="summarize_openai_model").set_value("ok").run()
    app.button[0].click().run()
    assert not app.exception and not app.error
    assert app.session_state["last_summary"].text.startswith("Summary:")
    assert [request["auth"] for request in ChatEndpoint.requests] == [f"Bearer {SECRET}"]
    no_secret_reached_anyone(ChatEndpoint.requests, Trap.seen)


def test_an_endpoint_with_listed_models_offers_only_those(servers, tmp_path, monkeypatch):
    chat_url, _ = servers
    write_endpoints(tmp_path, monkeypatch, f'[[endpoints]]\nname = "lab"\nbase_url = "{chat_url}"\n'
                                           'models = ["ok", "busy"]\n')
    app = open_app("pages/summarize.py")
    app.selectbox(key="summarize_summarizer").set_value("OpenAI-compatible endpoint (openai:)").run()
    assert app.text_input == []
    assert app.selectbox(key="summarize_openai_model_choice").options == ["ok", "busy"]
    assert app.button[0].disabled  # until a model is chosen
    app.selectbox(key="summarize_openai_model_choice").set_value("ok").run()
    assert not app.button[0].disabled


def test_an_audit_from_the_app_uses_the_configured_endpoint_and_nothing_else(servers, tmp_path, monkeypatch):
    chat_url, trap_url = servers
    write_lab_endpoint(tmp_path, monkeypatch, chat_url)
    app = open_app("pages/corpus.py")
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("one.txt", b"Mayor Robert Moore said he will resign.",
                                                  "text/plain").run()
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value([]).run()
    app.multiselect(key="audit_summarizers").set_value([]).run()
    assert [widget.label for widget in app.text_input if "URL" in widget.label or "variable" in widget.label] == []
    app.text_input(key="audit_openai_model").set_value("ok").run()
    store, info = launch_small_audit(app)
    assert info.status == "completed", info.message
    (spec,) = info.config["summarizers"]
    assert spec["name"] == "openai:ok"
    assert (spec["params"]["base_url"], spec["params"]["api_key_env"]) == (chat_url, "SUMMBIAS_TEST_KEY")
    assert ChatEndpoint.requests and {request["auth"] for request in ChatEndpoint.requests} == {f"Bearer {SECRET}"}
    no_secret_reached_anyone(ChatEndpoint.requests, Trap.seen)


def test_a_broken_endpoints_file_gets_one_line_and_no_endpoint(servers, tmp_path, monkeypatch):
    write_endpoints(tmp_path, monkeypatch, '[[endpoints]]\nname = "x"\nbase_url = "http://u:pw@h/v1"\n')
    app = open_app("pages/summarize.py")
    app.selectbox(key="summarize_summarizer").set_value("OpenAI-compatible endpoint (openai:)").run()
    assert not app.exception
    (error,) = app.error
    assert "The endpoints file could not be used" in error.value and "holds credentials" in error.value
    assert "\\*\\*\\*" in error.value and "pw" not in error.value.replace(str(tmp_path), "")  # redacted
    assert app.text_input == [] and app.button[0].disabled
