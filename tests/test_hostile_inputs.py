"""Hostile inputs through the CLI and the library: each is refused with a clear message or handled correctly."""

from __future__ import annotations

import csv
import json
import threading
import time
from http.server import ThreadingHTTPServer

from bias_core.common.records import Document, Input
from bias_core.documents.corpus import load_documents
from bias_core.perturb import get_perturbation
from bias_core.runs.store import RunStore
from bias_core.summarize import SummaryCache, get_summarizer, summarize_inputs
from bias_core.views.export import html_report
from tests.test_cli import cli
from tests.test_openai_summarizer import Endpoint


def test_a_100_mb_text_file_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "huge.txt"
    with big.open("wb") as stream:
        stream.truncate(100 * 10**6)  # a sparse 100 MB file: size checks must not read it
    started = time.perf_counter()
    result = cli("summarize", "--summarizer", "lead-3", "--inputs", str(big), "--out", str(tmp_path / "s.jsonl"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{big}: is 100.0 MB (100,000,000 bytes), over the 20 MB (20,000,000 bytes) limit" in result.stderr
    assert time.perf_counter() - started < 60 and not (tmp_path / "s.jsonl").exists()


def test_a_100000_row_csv_loads_every_row(tmp_path):
    path = tmp_path / "rows.csv"
    with path.open("w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["id", "text"])
        writer.writerows([f"r{k}", f"Row {k}: the council met, and Ms. Moore spoke."] for k in range(100_000))
    documents = load_documents(path)
    assert len(documents) == 100_000 and documents[-1].id == "r99999"


def test_one_enormous_sentence_is_summarized_and_perturbed():
    sentence = "Robert Moore said that " + ", and ".join(f"item {k} mattered to him" for k in range(8000)) + "."
    item = Input(id="long", original_id="long", text=sentence)
    summary = get_summarizer("lead-3").summarize([item])[0]
    assert summary.text == sentence.strip()
    result = get_perturbation("gender-glob", samples=1).run([Document(id="long", text=sentence)])
    assert result.inputs and all(i.original_text() == sentence for i in result.inputs)


def test_names_with_diacritics_and_non_latin_scripts_survive_a_swap():
    text = ("Robert Müller-Łukasiewicz met Linda Brontë in Kraków on Monday. He said she was right. "
            "Later 王小明 and Ольга Петрова joined them; Ms. Brontë thanked Mr. Müller-Łukasiewicz.")
    result = get_perturbation("gender-loc", samples=2).run([Document(id="d", text=text)])
    assert result.inputs and all(item.original_text() == text for item in result.inputs)
    assert all("Müller-Łukasiewicz" in item.text and "王小明" in item.text for item in result.inputs)


def test_accented_first_names_get_their_census_gender():
    from bias_core.perturb.names import first_name_gender

    assert (first_name_gender("José"), first_name_gender("Zoë"), first_name_gender("王小明")) == ("male", "female",
                                                                                               None)


def test_garbage_bytes_from_a_model_are_kept_as_text_and_escaped_in_exports(tmp_path):
    class Garbage(Endpoint):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            content = "\x00\x1b[31m<script>alert(1)</script>\ufffd\udcff"
            payload = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}]}
            self._send(200, json.dumps(payload).encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Garbage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        summarizer = get_summarizer("openai:m", base_url=f"http://127.0.0.1:{server.server_port}/v1", retries=0)
        report = summarize_inputs(summarizer, [Input(id="i", original_id="d", text="An article.")],
                                  cache=SummaryCache(tmp_path / "c.sqlite"))
    finally:
        server.shutdown()
    (summary,) = report.summaries
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, "h", {"seed": 0})
    store.add_summaries(run_id, [summary])
    page = html_report(store, run_id)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert store.summaries(run_id)[0].text == summary.text


def test_an_empty_summary_is_stored_and_measured_without_error(tmp_path):
    empty = get_summarizer("lead-3").summarize([Input(id="e", original_id="e", text="   \n  ")])[0]
    assert empty.text == ""
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, "h", {"seed": 0})
    store.add_summaries(run_id, [empty])
    assert store.summaries(run_id)[0].text == ""
