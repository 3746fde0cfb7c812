"""Hugging Face models in the app only from the operator's list (issue 30): ``[[models]]`` entries of the endpoints
file, each with the only token variable its loading may send; the Summarize and Audit pages offer those and no free
text; a model that does not load is one line that neither echoes its files nor tells an existing path from a missing
one, and says the Hub is offline only where it is."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from bias_core.common.records import Input
from bias_core.safety.endpoints import Model, browser_endpoints, browser_models
from bias_core.safety.errors import InputError
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from pages.render import md_escape
from tests.conftest import REPO, launch_small_audit, open_app

SHORT = ("Robert Moore, the mayor of Springfield, said on Monday that he will not run again. "
         "His deputy, Linda Chen, is expected to run. She has served for six years.")
AMBIENT_TOKEN = "hf_ambient-server-token-never-sent-17"
LAB_TOKEN = "hf_lab-token-of-the-entry-23"


def write_endpoints(tmp_path, monkeypatch, text: str):
    path = tmp_path / "endpoints.toml"
    path.write_text(text)
    monkeypatch.setenv("SUMMBIAS_ENDPOINTS", str(path))
    return path


def test_the_operator_lists_models_with_a_name_and_the_variable_of_their_token(tmp_path, monkeypatch):
    write_endpoints(tmp_path, monkeypatch, '''
[[endpoints]]
name = "lab"
base_url = "http://10.0.0.5:8000/v1"

[[models]]
model = "facebook/bart-large-cnn"
name = "BART large CNN"
token_env = "HF_LAB_TOKEN"

[[models]]
model = "/srv/models/pegasus"
''')
    bart, pegasus = browser_models()
    assert bart == Model("BART large CNN", "facebook/bart-large-cnn", "HF_LAB_TOKEN")
    assert pegasus == Model("/srv/models/pegasus", "/srv/models/pegasus", "")
    assert (bart.summarizer_name, bart.summarizer_params()) == ("hf:facebook/bart-large-cnn",
                                                                {"token_env": "HF_LAB_TOKEN"})
    assert pegasus.summarizer_params() == {"token_env": ""}  # no variable: no token at all, not the server's
    assert [endpoint.name for endpoint in browser_endpoints()] == ["lab"]
    monkeypatch.delenv("SUMMBIAS_ENDPOINTS")
    assert browser_models() == []


@pytest.mark.parametrize(("entry", "problem"), [
    ('model = "org/m"\ntoken = "hf_abc"', "unknown key token (known: model, name, token_env)"),
    ('model = "org/m"\ntoken_env = "HF TOKEN"', "token_env = 'HF TOKEN' is not the name of an environment variable"),
    ('model = "org/m"\ntoken_env = 3', "token_env = 3 is not the name of an environment variable"),
    ('name = "m"', "model must be a Hugging Face Hub id or the path of a model folder"),
    ('model = ""', "model must be a Hugging Face Hub id or the path of a model folder"),
    ('model = "org/m"\nname = ""', "name must be a non-empty line of text"),
])
def test_a_bad_models_entry_is_refused_in_one_line_naming_the_file_and_the_entry(tmp_path, entry, problem):
    path = tmp_path / "endpoints.toml"
    path.write_text(f'[[models]]\nmodel = "org/first"\n[[models]]\n{entry}\n')
    with pytest.raises(InputError) as caught:
        browser_models(path)
    assert str(caught.value) == f"{path}, model 2: {problem}"


def test_a_model_or_a_name_listed_twice_is_refused(tmp_path):
    path = tmp_path / "endpoints.toml"
    path.write_text('[[models]]\nmodel = "org/a"\nname = "A"\n[[models]]\nmodel = "org/b"\nname = "A"\n')
    with pytest.raises(InputError, match="the name A is listed twice"):
        browser_models(path)
    path.write_text('[[models]]\nmodel = "org/a"\n[[models]]\nmodel = "org/a"\nname = "again"\n')
    with pytest.raises(InputError, match="the model org/a is listed twice"):
        browser_models(path)


def test_a_listed_local_model_loads_without_a_token_and_summarizes(tmp_path, monkeypatch, tiny_bart_dir):
    write_endpoints(tmp_path, monkeypatch, f'[[models]]\nmodel = "{tiny_bart_dir}"\nname = "Tiny BART"\n')
    (model,) = browser_models()
    summarizer = get_summarizer(model.summarizer_name, **model.summarizer_params(), max_new_tokens=8)
    report = summarize_inputs(summarizer, [Input("i", "d", SHORT)], cache=SummaryCache(tmp_path / "c.sqlite"))
    assert report.failures == [] and report.summaries[0].summarizer == f"hf:{tiny_bart_dir}"
    assert "token_env" not in report.summaries[0].meta["parameters"]  # a token changes no summary: same cache key


# Loading errors ------------------------------------------------------------------------------------------------------

def unreadable_folder(tmp_path):
    """A folder this process may not look into: /proc/1/root where even root is refused (a container), else a chmod
    000 folder for a user who is not root."""
    try:
        os.stat("/proc/1/root/.")
    except PermissionError:
        return "/proc/1/root"
    except OSError:
        pass
    if os.geteuid() != 0:
        folder = tmp_path / "locked"
        (folder / "inner").mkdir(parents=True)
        folder.chmod(0)
        return str(folder / "inner")
    pytest.skip("no folder here refuses this process")


def broken_models(tmp_path, tiny_bart_dir) -> dict[str, str]:
    """What a visitor could once point ``hf:`` at, each a different way of not being a loadable model."""
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    secret = tmp_path / "secret-config"
    secret.mkdir()
    (secret / "config.json").write_text('{"model_type": "TOPSECRET-42"}')
    pickled = tmp_path / "pickled"
    shutil.copytree(tiny_bart_dir, pickled)
    (pickled / "model.safetensors").unlink()
    payload = tmp_path / "payload-ran"
    (pickled / "pytorch_model.bin").write_bytes(pickle.dumps(_Payload(str(payload))))
    return {"a file that is not JSON": str(passwd), "a missing path": str(tmp_path / "no-such-folder"),
            "a config.json of any model_type": str(secret), "a pickled checkpoint": str(pickled),
            "a folder this process may not read": unreadable_folder(tmp_path)}


class _Payload:
    """A pickle that would create a file if it were ever unpickled with code execution."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return open, (self.path, "w")


LEAKS = ("JSON", "json", "TOPSECRET", "model_type", "pickl", "Pickl", "Repo id", "Permission", "Errno", "root:x",
         "weights_only", "does not exist", "not a directory", "No such")


def failure_of(model: str, tmp_path) -> str:
    """The one line a summary fails with, as the Summarize page gets it (the runner with a cache)."""
    report = summarize_inputs(get_summarizer(f"hf:{model}", token_env=""), [Input("i", "d", SHORT)],
                              cache=SummaryCache(tmp_path / "cache.sqlite"))
    assert report.summaries == [] and len(report.failures) == 1
    return report.failures[0].error


def test_a_model_that_does_not_load_says_one_line_that_neither_echoes_its_files_nor_tells_if_it_exists(
        tmp_path, tiny_bart_dir):
    messages = {case: failure_of(model, tmp_path).replace(model, "MODEL")
                for case, model in broken_models(tmp_path, tiny_bart_dir).items()}
    assert len(set(messages.values())) == 1, messages  # nothing tells one case from another
    (message,) = set(messages.values())
    assert message.startswith("could not load model 'MODEL': ") and "\n" not in message
    assert not [leak for leak in LEAKS if leak in message], message
    assert not (tmp_path / "payload-ran").exists()


def test_the_hub_is_said_to_be_offline_only_where_a_variable_makes_it_so(tmp_path, tiny_bart_dir, monkeypatch):
    import transformers  # noqa: F401 -- imported (offline, as conftest set) before the variables go

    cases = broken_models(tmp_path, tiny_bart_dir)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert "The Hub is offline here (HF_HUB_OFFLINE=1)" in failure_of(cases["a missing path"], tmp_path)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    assert "The Hub is offline here (TRANSFORMERS_OFFLINE=1)" in failure_of(cases["a missing path"], tmp_path)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE")
    for model in cases.values():
        assert "offline" not in failure_of(model, tmp_path)


# The token -------------------------------------------------------------------------------------------------------

class Hub(BaseHTTPRequestHandler):
    """A stand-in for the Hugging Face Hub that has no repository: it records each request's path and token."""

    seen: ClassVar[list[tuple[str, str]]] = []

    def log_message(self, *args):
        pass

    def _not_found(self):
        Hub.seen.append((self.path, self.headers.get("Authorization") or ""))
        body = b'{"error": "Repository not found"}'
        self.send_response(404)
        self.send_header("X-Error-Code", "RepoNotFound")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_HEAD = do_POST = _not_found


LOAD_EACH = """
import json
from bias_core.common.records import Input
from bias_core.safety.endpoints import browser_models
from bias_core.summarize import get_summarizer, summarize_inputs

said = {}
runs = [(model.summarizer_name, model.summarizer_params()) for model in browser_models()]
runs.append(("hf:cli-org/typed-by-the-operator", {}))  # the command line: the Hub client's own default token
for name, params in runs:
    report = summarize_inputs(get_summarizer(name, **params), [Input("i", "d", "A text.")], cache=None)
    said[name] = report.failures[0].error
print(json.dumps(said))
"""


def test_a_listed_model_sends_the_hub_only_the_token_of_its_own_variable(tmp_path):
    Hub.seen.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoints = tmp_path / "endpoints.toml"
    endpoints.write_text('[[models]]\nmodel = "lab-org/with-token"\ntoken_env = "LAB_TOKEN"\n'
                         '[[models]]\nmodel = "lab-org/without-token"\n')
    environment = {key: value for key, value in os.environ.items() if key not in ("HF_HUB_OFFLINE",
                                                                                   "TRANSFORMERS_OFFLINE")}
    environment.update(HF_ENDPOINT=f"http://127.0.0.1:{server.server_port}", HF_HOME=str(tmp_path / "hf"),
                       HF_TOKEN=AMBIENT_TOKEN, LAB_TOKEN=LAB_TOKEN, SUMMBIAS_ENDPOINTS=str(endpoints),
                       HF_HUB_DISABLE_TELEMETRY="1")
    try:
        done = subprocess.run([sys.executable, "-c", LOAD_EACH], check=False, capture_output=True, text=True,
                              timeout=300, cwd=REPO, env=environment)
    finally:
        server.shutdown()
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    tokens: dict[str, set[str]] = {}
    for path, authorization in Hub.seen:
        repository = next(name for name in ("with-token", "without-token", "typed-by-the-operator") if name in path)
        tokens.setdefault(repository, set()).add(authorization)
    assert tokens == {"with-token": {f"Bearer {LAB_TOKEN}"}, "without-token": {""},
                      "typed-by-the-operator": {f"Bearer {AMBIENT_TOKEN}"}}, Hub.seen
    for name, message in said.items():  # online here: nothing says the Hub is offline
        assert message.startswith(f"could not load model '{name.removeprefix('hf:')}': ") and "offline" not in message
        assert AMBIENT_TOKEN not in message and LAB_TOKEN not in message


# The pages -------------------------------------------------------------------------------------------------------

def test_summarize_offers_only_the_listed_models_and_no_free_text(tmp_path, monkeypatch, tiny_bart_dir):
    write_endpoints(tmp_path, monkeypatch, f'[[models]]\nmodel = "{tiny_bart_dir}"\nname = "Tiny BART"\n')
    app = open_app("pages/summarize.py")
    app.selectbox(key="summarize_summarizer").set_value("Hugging Face model (hf:)").run()
    assert app.text_input == []
    choice = app.selectbox(key="summarize_hf_model")
    assert choice.options == ["Tiny BART"] and choice.value == "Tiny BART"
    assert md_escape("a model folder on the server · token: none") in [caption.value for caption in app.caption]
    assert str(tiny_bart_dir) not in " ".join(caption.value for caption in app.caption)
    app.button[0].click().run()
    assert not app.exception and not app.error
    assert app.subheader[0].value == f"Summary by {md_escape(f'hf:{tiny_bart_dir}')}"


def test_summarize_without_listed_models_says_how_to_list_them_and_offers_nothing(tmp_path, monkeypatch):
    from pages.parts.models import NONE_LISTED

    monkeypatch.delenv("SUMMBIAS_ENDPOINTS", raising=False)
    app = open_app("pages/summarize.py")
    app.selectbox(key="summarize_summarizer").set_value("Hugging Face model (hf:)").run()
    assert not app.exception and app.text_input == []
    assert NONE_LISTED in [caption.value for caption in app.caption]
    assert "[[models]]" in NONE_LISTED and "SUMMBIAS_ENDPOINTS" in NONE_LISTED
    assert app.button[0].disabled


def test_an_audit_from_the_app_runs_a_listed_model_resolved_on_the_server(tmp_path, monkeypatch, tiny_bart_dir):
    write_endpoints(tmp_path, monkeypatch, f'[[models]]\nmodel = "{tiny_bart_dir}"\nname = "Tiny BART"\n')
    app = open_app("pages/corpus.py")
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("one.txt", b"Mayor Robert Moore said he will resign.",
                                                  "text/plain").run()
    app.switch_page("pages/audit.py").run()
    assert not app.exception
    assert not [widget.label for widget in app.text_input if "Hugging Face" in widget.label or "path" in widget.label]
    choice = app.selectbox(key="audit_hf_model")
    assert choice.options == ["Tiny BART"] and choice.value is None  # optional: no model until one is picked
    app.multiselect(key="audit_perturbations").set_value([]).run()
    app.multiselect(key="audit_summarizers").set_value([]).run()
    app.selectbox(key="audit_hf_model").set_value("Tiny BART").run()
    _, info = launch_small_audit(app)
    assert info.status == "completed", info.message
    assert info.config["summarizers"] == [{"name": f"hf:{tiny_bart_dir}", "params": {"token_env": ""}}]
