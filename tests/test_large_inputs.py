"""Large and odd inputs (issue 12, item 6): texts over spaCy's ``max_length`` are parsed in chunks with exact offsets
through perturb, summarize and audit; perturbing many documents shows a progress bar; a pair with two '=' is refused.

The chunking tests lower ``max_length`` to a few thousand characters so that a text of a few pages takes the same
path a 5 MB text does (benchmarks/perturb_scale.py and the issue's closing note report the 5 MB run itself).
"""

from __future__ import annotations

import json

import pytest

from bias_core.cli import main
from bias_core.common import nlp
from bias_core.common.records import Document
from bias_core.documents.record_files import read_inputs, read_summaries
from bias_core.perturb import base, get_perturbation, parse_pair
from bias_core.runs.store import RunStore
from tests.test_cli import cli

MAX_LENGTH = 3_000


def long_single_line(sentences: int = 120) -> str:
    """One line of news prose naming people throughout, with no paragraph break: only sentence and word cuts."""
    people = [("Robert Moore", "He"), ("Linda Clark", "She"), ("James Walker", "He"), ("Susan Young", "She")]
    parts = []
    for k in range(sentences):
        name, pronoun = people[k % len(people)]
        parts.append(f"{name} told the council on day {k} that the budget mattered. {pronoun} asked for a vote.")
    return " ".join(parts)


@pytest.fixture
def small_max_length(monkeypatch):
    """spaCy's limit lowered so that ``long_single_line()`` (about 12,000 characters) is over it."""
    monkeypatch.setattr(nlp.spacy_pipeline(), "max_length", MAX_LENGTH)


def test_chunks_join_back_into_the_text_and_cut_at_the_best_boundary():
    paragraphs = "First para. Still first.\n\nSecond para here. More.\n\nThird."
    chunks = nlp.text_chunks(paragraphs, 40)
    assert "".join(chunks) == paragraphs and chunks[0] == "First para. Still first.\n\n"
    sentences = "One sentence here. Another one there. A third one."
    assert nlp.text_chunks(sentences, 30) == ["One sentence here. ", "Another one there. ", "A third one."]
    words = "alpha beta gamma delta epsilon zeta eta theta"
    assert all(len(chunk) <= 12 and not chunk[0].isspace() for chunk in nlp.text_chunks(words, 12))
    assert nlp.text_chunks("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]
    assert nlp.text_chunks("short", 10) == ["short"]


def test_a_text_over_max_length_parses_like_the_whole_text_with_exact_offsets(small_max_length):
    text = long_single_line()
    assert len(text) > 3 * MAX_LENGTH and "\n" not in text
    chunked, short = nlp.parse([text, "A short one."])
    assert chunked.text == text and short.text == "A short one."
    nlp.spacy_pipeline().max_length = 10**6
    (whole,) = nlp.parse([text])
    assert [(e.start_char, e.end_char, e.label_) for e in chunked.ents] == [
        (e.start_char, e.end_char, e.label_) for e in whole.ents]
    assert [s.start_char for s in chunked.sents] == [s.start_char for s in whole.sents]
    assert max(e.start_char for e in chunked.ents) > 3 * MAX_LENGTH


def test_a_text_over_max_length_is_split_into_sentences(small_max_length):
    text = long_single_line()
    (sentences,) = nlp.split_sentences([text])
    assert len(sentences) == 240 and sentences[-1].startswith("She asked")


def test_perturb_cli_perturbs_a_text_over_max_length_with_exact_substitutions(small_max_length, tmp_path):
    text = long_single_line()
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "inputs.jsonl"
    assert main(["perturb", "--kind", "gender-glob", "--documents", str(tmp_path / "long.txt"), "--out", str(out),
                 "--samples", "1", "--quiet"]) == 0
    inputs = read_inputs(out)
    assert len(inputs) == 2 and all(item.original_text() == text for item in inputs)
    for item in inputs:
        assert all(item.text[s.start : s.end] == s.replacement for s in item.substitutions)
        assert max(s.start for s in item.substitutions) > len(item.text) - MAX_LENGTH  # swaps in the last chunk too
    female = next(item for item in inputs if item.arm == "female")
    assert " He " not in female.text and "Robert" not in female.text


def test_summarize_cli_summarizes_a_text_over_max_length(small_max_length, tmp_path):
    text = long_single_line()
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "s.jsonl"
    assert main(["summarize", "--summarizer", "lead-3", "--inputs", str(tmp_path / "long.txt"), "--out",
                 str(out)]) == 0
    (summary,) = read_summaries(out)
    assert summary.text == ("Robert Moore told the council on day 0 that the budget mattered. He asked for a vote. "
                            "Linda Clark told the council on day 1 that the budget mattered.")
    assert len(summary.sentences) == 240


def test_audit_runs_to_completion_on_a_text_over_max_length(small_max_length, tmp_path, capsys):
    (tmp_path / "long.txt").write_text(long_single_line(), encoding="utf-8")
    config = tmp_path / "audit.toml"
    config.write_text('name = "long text"\n[corpus]\npath = "long.txt"\n[[perturbations]]\nkind = "gender-glob"\n'
                      'samples = 1\n[[summarizers]]\nname = "lead-3"\n[measures]\nbootstrap = 50\n')
    store = tmp_path / "runs.sqlite"
    assert main(["audit", "--config", str(config), "--store", str(store), "--quiet"]) == 0
    run_id = capsys.readouterr().out.strip().splitlines()[-1]
    info = RunStore(store).get_run(run_id)
    assert info.status == "completed", info.message
    assert len(RunStore(store).summaries(run_id)) == 3  # identity + the two gender-glob arms


def test_perturb_shows_a_progress_bar_on_stderr_unless_quiet(tmp_path, capsys):
    documents = tmp_path / "docs.jsonl"
    documents.write_text("".join(json.dumps({"id": f"d{k}", "text": f"Robert Moore spoke on day {k}. He left."})
                                 + "\n" for k in range(3)))
    arguments = ["perturb", "--kind", "gender-loc", "--documents", str(documents), "--out", str(tmp_path / "i.jsonl"),
                 "--samples", "1"]
    assert main(arguments) == 0
    assert "perturb gender-loc: 100%" in capsys.readouterr().err
    assert main([*arguments, "--quiet"]) == 0
    assert "100%" not in capsys.readouterr().err


def test_perturbing_in_chunks_reports_every_document_and_gives_the_inputs_of_one_run(monkeypatch):
    monkeypatch.setattr(base, "PROGRESS_CHUNK_DOCUMENTS", 2)
    documents = [Document(id=f"d{k}", text=f"Robert Moore met Linda Clark on day {k}. He said she was right.")
                 for k in range(5)] + [Document(id="none", text="Nobody is named here.")]
    perturbation = get_perturbation("gender-loc", samples=2, seed=3)
    done: list[int] = []
    chunked = perturbation.run_with_progress(documents, progress=done.append)
    whole = perturbation.run(documents)
    assert done == [2, 2, 2]
    assert chunked.inputs == whole.inputs and chunked.report.to_dict() == whole.report.to_dict()
    assert chunked.run_info == whole.run_info


def test_chunks_of_documents_are_bounded_by_count_and_characters(monkeypatch):
    monkeypatch.setattr(base, "PROGRESS_CHUNK_CHARS", 100)
    documents = [Document(id=f"d{k}", text="x" * size) for k, size in enumerate([60, 30, 50, 300, 10])]
    assert [[d.id for d in chunk] for chunk in base.document_chunks(documents)] == [
        ["d0", "d1"], ["d2"], ["d3"], ["d4"]]
    assert [list(chunk) for chunk in base.document_chunks([])] == [[]]


@pytest.mark.parametrize("pair", ["Donald Trump=Joe Biden=Barack Obama", "=Joe Biden", "Donald Trump=", "Trump Biden"])
def test_a_pair_without_exactly_one_equals_sign_and_two_names_is_refused(pair):
    with pytest.raises(ValueError, match=f"politician pair {pair!r}"):
        parse_pair(pair)


def test_perturb_cli_refuses_a_pair_with_two_equals_signs_in_one_line(tmp_path):
    pair = "Donald Trump=Joe Biden=Barack Obama"  # was read as "Donald Trump" and "Joe Obama"
    result = cli("perturb", "--kind", "politician", "--documents", "data/demo/news.jsonl", "--out",
                 str(tmp_path / "i.jsonl"), "--pair", pair, "--quiet")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and f"politician pair {pair!r}: needs exactly one '='" in line
    assert not (tmp_path / "i.jsonl").exists()


def test_the_app_loads_a_utf16_upload_and_refuses_deep_json_naming_the_line():
    from tests.conftest import open_app

    text = "Robert Moore met Linda Clark in Kraków. He said she was right."
    app = open_app()
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("notes.txt", text.encode("utf-16"), "text/plain").run()
    assert not app.exception and not app.error
    assert [d.text for d in app.session_state["documents"]] == [text]
    deep = b'{"id": "a", "text": "x", "meta": {"k": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}\n"
    app.file_uploader(key="corpus_upload").upload("deep.jsonl", deep, "application/octet-stream").run()
    assert not app.exception
    assert app.error[0].value.startswith("Could not load the file. deep.jsonl, line 1: nests JSON more than 100")


@pytest.mark.parametrize("kind", ["gender-loc", "race", "politician"])
def test_an_original_over_the_name_perturbation_limit_is_skipped_with_its_length_and_others_are_kept(kind,
                                                                                                     monkeypatch):
    from bias_core.perturb import templates

    monkeypatch.setattr(templates, "MAX_PERTURB_CHARS", 2_000)
    short = Document(id="short", text="Donald Trump met Robert Moore on Monday. He said Moore was right.")
    long = Document(id="long", text=long_single_line(40) + " Donald Trump agreed.")
    result = get_perturbation(kind, samples=1).run([short, long]) if kind != "politician" else \
        get_perturbation(kind).run([short, long])
    skipped = {entry.original_id: entry.reason for entry in result.report.skipped}
    assert "too long for name perturbations" in skipped["long"] and "over the limit of 2,000" in skipped["long"]
    assert "short" not in skipped and {item.original_id for item in result.inputs} == {"short"}


def test_perturb_cli_on_a_5_mb_single_line_text_skips_it_with_one_clear_reason(tmp_path, capsys):
    text = long_single_line(60_000)[: 5 * 1024 * 1024]
    assert len(text) == 5_242_880
    (tmp_path / "huge.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "inputs.jsonl"
    assert main(["perturb", "--kind", "gender-loc", "--documents", str(tmp_path / "huge.txt"), "--out", str(out),
                 "--samples", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "too long for name perturbations" in err and "no document could be perturbed" in err
    assert "Traceback" not in err
    skips = (tmp_path / "inputs.jsonl.skips.json").read_text()
    assert "5,242,880 characters, over the limit of 1,000,000" in skips
