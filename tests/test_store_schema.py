"""The run store and the summary cache refuse newer, damaged, foreign and unwritable files with one line, touch
nothing when they do, and a damaged cache is moved aside and rebuilt with `python -m bias_core cache --reset`.

Every file here is a real SQLite file damaged the way a disk or a user damages it: garbage bytes, a truncated file,
overwritten pages, a renamed column, a future schema version.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import bias_core.common.sqlite_files as sqlite_files
from bias_core.cli import main
from bias_core.common.records import Input, Summary
from bias_core.reference.demo import ensure_demo_run
from bias_core.runs.run_info import StoreError
from bias_core.runs.store import RunStore
from bias_core.runs.store_schema import SCHEMA_VERSION
from bias_core.summarize.cache import SCHEMA_VERSION as CACHE_VERSION
from bias_core.summarize.cache import CacheError, SummaryCache

REPO = Path(__file__).resolve().parent.parent


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def user_version(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("PRAGMA user_version").fetchone()[0]
    finally:
        connection.close()


def make_store(path: Path, runs: int = 3) -> Path:
    """A real store with a few runs of 20 ~1 kB inputs each (several pages per table), closed (WAL checkpointed)."""
    store = RunStore(path)
    for k in range(runs):
        run_id = store.create_run({"k": k}, f"hash-{k}", {"seed": k}, name=f"run {k}")
        store.add_inputs(run_id, [Input(id=f"i{j}", original_id="d", text=f"MARKER{k}-{j} " + "word " * 200)
                                  for j in range(20)])
        store.add_summaries(run_id, [Summary("i0", "lead-3", "a summary")])
    store.close()
    assert not path.with_name(path.name + "-wal").exists()
    return path


def make_cache(path: Path) -> Path:
    cache = SummaryCache(path)
    cache.put_many([(f"key{k}", Summary(f"i{k}", "lead-3", "summary " * 100)) for k in range(40)])
    cache.close()
    return path


def overwrite(path: Path, offset: int, data: bytes) -> None:
    with path.open("r+b") as stream:
        stream.seek(offset)
        stream.write(data)


def page_offset(path: Path, table: str) -> int:
    """Byte offset of the root page of ``table``."""
    connection = sqlite3.connect(path)
    try:
        root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    finally:
        connection.close()
    return (root - 1) * page_size


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# versions ---------------------------------------------------------------------------------------------------------

def test_a_new_store_and_cache_are_stamped_with_their_schema_version(tmp_path):
    RunStore(tmp_path / "runs.sqlite").close()
    SummaryCache(tmp_path / "cache.sqlite").close()
    assert user_version(tmp_path / "runs.sqlite") == SCHEMA_VERSION == 3
    assert user_version(tmp_path / "cache.sqlite") == CACHE_VERSION == 1


def test_files_written_before_schema_versions_keep_working_and_are_stamped(tmp_path):
    store_path = make_store(tmp_path / "runs.sqlite")
    cache_path = make_cache(tmp_path / "cache.sqlite")
    for path in (store_path, cache_path):
        with sqlite3.connect(path) as connection:
            connection.execute("PRAGMA user_version = 0")
        assert user_version(path) == 0
    store = RunStore(store_path)
    assert [run.name for run in store.list_runs()] == ["run 2", "run 1", "run 0"]
    assert len(SummaryCache(cache_path).get_many(["key0", "key39"])) == 2
    assert user_version(store_path) == 3 and user_version(cache_path) == 1


def test_the_shipped_demo_run_imports_into_a_versioned_store(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = ensure_demo_run(store)
    assert run_id and store.get_run(run_id).status == "completed" and store.measures(run_id)
    assert user_version(tmp_path / "runs.sqlite") == 3


def test_a_version_1_store_gains_the_views_table_when_opened_and_reads_as_before(tmp_path):
    """Schema 2 added ``views`` (what the result pages need first): a store written by schema 1 is read without it
    read-only, and opening it for writing adds the table and stamps version 2, every run kept."""
    path = make_store(tmp_path / "runs.sqlite")
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE views")
        connection.execute("PRAGMA user_version = 1")
    read_only = RunStore(path, read_only=True)
    run_id = read_only.list_runs()[0].id
    assert read_only.views(run_id, "any") is None and user_version(path) == 1
    read_only.close()
    store = RunStore(path)
    assert [run.name for run in store.list_runs()] == ["run 2", "run 1", "run 0"] and user_version(path) == 3
    store.set_views(run_id, "v:1", {"flagged": []})
    assert store.views(run_id, "v:1") == {"flagged": []} and store.views(run_id, "v:2") is None


def test_a_store_from_a_newer_summbias_is_refused_by_every_command_and_left_byte_for_byte(tmp_path, capsys):
    path = make_store(tmp_path / "runs.sqlite")
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 99")
    before = digest(path)
    message = ("was written by a newer summbias (schema 99, this version reads up to 3) — upgrade summbias or "
               "choose another --store")
    with pytest.raises(StoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
        RunStore(path)
    config = tmp_path / "audit.toml"
    config.write_text(f'[corpus]\npath = "{REPO / "data/demo/news.jsonl"}"\n\n[[summarizers]]\nname = "lead-3"\n')
    for argv in (["runs", "--store", str(path)],
                 ["export", "--run", "x", "--format", "json", "--out", str(tmp_path / "x.json"), "--store", str(path)],
                 ["audit", "--config", str(config), "--store", str(path), "--cache", str(tmp_path / "c.sqlite"),
                  "--quiet"]):
        assert main(argv) == 2
        assert message in one_error_line(capsys)
    assert digest(path) == before and not (tmp_path / "x.json").exists()
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 3


def test_a_cache_from_a_newer_summbias_is_refused_and_left_byte_for_byte(tmp_path, capsys):
    path = make_cache(tmp_path / "cache.sqlite")
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 7")
    before = digest(path)
    with pytest.raises(CacheError, match=r"newer summbias \(schema 7, this version reads up to 1\)"):
        SummaryCache(path)
    assert main(["summarize", "--summarizer", "lead-3", "--inputs", str(REPO / "data/demo/news.jsonl"),
                 "--out", str(tmp_path / "s.jsonl"), "--cache", str(path)]) == 2
    assert "choose another --cache" in one_error_line(capsys)
    assert digest(path) == before and not (tmp_path / "s.jsonl").exists()


# damaged and foreign files ---------------------------------------------------------------------------------------

def test_garbage_bytes_as_a_store_or_cache_are_one_line_and_untouched(tmp_path, capsys):
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(os.urandom(1) + b"this is not a database" * 500)
    before = digest(garbage)
    with pytest.raises(StoreError, match="is not a run store .*file is not a database"):
        RunStore(garbage)
    assert main(["runs", "--store", str(garbage)]) == 2
    assert "is not a run store" in one_error_line(capsys)
    assert main(["cache", "--cache", str(garbage)]) == 2
    line = one_error_line(capsys)
    # not an SQLite file: nothing `cache --reset` should move aside (it refuses such a file), so no reset hint
    assert "is not a summary cache" in line and "choose another --cache" in line and "--reset" not in line
    assert digest(garbage) == before


def test_a_store_with_an_overwritten_page_header_is_refused_on_open(tmp_path):
    path = make_store(tmp_path / "runs.sqlite")
    overwrite(path, page_offset(path, "inputs"), b"\xff" * 100)
    before = digest(path)
    with pytest.raises(StoreError) as caught:
        RunStore(path)
    message = str(caught.value)
    assert message.startswith(f"the run store {path} is damaged (") and "\n" not in message
    assert f"`mv {path} {path}.corrupt`" in message and digest(path) == before


def test_a_store_truncated_mid_page_is_refused_on_open(tmp_path):
    path = make_store(tmp_path / "runs.sqlite")
    os.truncate(path, path.stat().st_size - 3 * 4096 - 1000)
    before = digest(path)
    with pytest.raises(StoreError, match=f"the run store {path} is damaged"):
        RunStore(path)
    assert digest(path) == before


def test_overwritten_bytes_inside_a_stored_record_are_one_line_when_read(tmp_path, capsys):
    path = make_store(tmp_path / "runs.sqlite")
    data = path.read_bytes()
    overwrite(path, data.index(b"MARKER1-5"), b'"}\xff\xfe{' * 4)  # breaks the JSON and the UTF-8 of one record
    run_id = RunStore(path).list_runs()[1].id
    with pytest.raises(StoreError, match=f"the run store {path} is damaged"):
        RunStore(path).inputs(run_id)
    assert main(["export", "--run", run_id, "--format", "json", "--out", str(tmp_path / "x.json"),
                 "--store", str(path)]) == 2
    assert f"the run store {path} is damaged" in one_error_line(capsys)
    assert not (tmp_path / "x.json").exists()


def test_damage_in_a_store_too_big_to_check_on_open_is_one_line_on_first_use(tmp_path, monkeypatch):
    path = make_store(tmp_path / "runs.sqlite")
    overwrite(path, page_offset(path, "runs"), b"\xff" * 8)
    monkeypatch.setattr(sqlite_files, "QUICK_CHECK_MAX_BYTES", 0)  # as if the file were larger than the limit
    store = RunStore(path)
    with pytest.raises(StoreError, match=f"the run store {path} is damaged .*database disk image is malformed"):
        store.list_runs()


def test_a_folder_as_store_or_cache_is_one_line(tmp_path, capsys):
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(StoreError, match="is a folder, not a file — choose a file with --store"):
        RunStore(folder)
    with pytest.raises(CacheError, match="is a folder, not a file — choose a file with --cache"):
        SummaryCache(folder)
    assert main(["runs", "--store", str(folder)]) == 2
    assert "is a folder" in one_error_line(capsys)
    assert main(["cache", "--reset", "--cache", str(folder)]) == 2
    assert "is a folder" in one_error_line(capsys) and folder.is_dir() and not list(folder.iterdir())


def test_a_renamed_column_is_named_and_nothing_is_written(tmp_path):
    store_path = make_store(tmp_path / "runs.sqlite")
    cache_path = make_cache(tmp_path / "cache.sqlite")
    with sqlite3.connect(store_path) as connection:
        connection.execute("ALTER TABLE runs RENAME COLUMN message TO note")
    with sqlite3.connect(cache_path) as connection:
        connection.execute("ALTER TABLE summaries RENAME COLUMN summary TO text")
    before = digest(store_path), digest(cache_path)
    with pytest.raises(StoreError, match=r"unexpected table 'runs' \(missing columns: message; unexpected: note\)"):
        RunStore(store_path)
    with pytest.raises(CacheError, match=r"unexpected table 'summaries' \(missing columns: summary; unexpected: "
                                         r"text\)"):
        SummaryCache(cache_path)
    assert (digest(store_path), digest(cache_path)) == before


def test_another_programs_database_is_not_taken_over(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER, amount REAL)")
    before = digest(path)
    with pytest.raises(StoreError, match="has no table 'runs', so it was not written by this summbias"):
        RunStore(path)
    assert digest(path) == before


# read-only -------------------------------------------------------------------------------------------------------

def _drop_file_permission_override() -> None:
    """In the child: drop the capabilities that let root ignore file modes, so chmod works as for any user."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def test_a_read_only_store_can_be_listed_and_exported_but_writing_is_one_line(tmp_path):
    """Runs as a real process whose file modes are enforced: tests run as root, and root ignores chmod unless it
    drops CAP_DAC_OVERRIDE (done in the child before exec; for other users chmod alone is enough)."""
    folder = tmp_path / "readonly"
    folder.mkdir()
    path = make_store(folder / "runs.sqlite")
    run_id = RunStore(path).list_runs()[0].id
    cache_folder = tmp_path / "writable"
    cache_folder.mkdir()
    path.chmod(0o444)
    folder.chmod(0o555)
    config = tmp_path / "audit.toml"
    config.write_text(f'[corpus]\npath = "{REPO / "data/demo/news.jsonl"}"\n\n[[summarizers]]\nname = "lead-3"\n')
    script = f"""
import json, sys
from bias_core.cli import main
codes = [main(["runs", "--json", "--store", {str(path)!r}]),
         main(["export", "--run", {run_id!r}, "--format", "csv", "--out", {str(cache_folder / "m.csv")!r},
               "--store", {str(path)!r}]),
         main(["audit", "--config", {str(config)!r}, "--store", {str(path)!r}, "--cache",
               {str(cache_folder / "c.sqlite")!r}, "--quiet", "--new"])]
print(json.dumps(codes))
"""
    before = digest(path)
    try:
        result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                                timeout=300, preexec_fn=_drop_file_permission_override if os.geteuid() == 0 else None)
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)
    lines = result.stdout.strip().splitlines()
    assert json.loads(lines[-1]) == [0, 0, 2], result.stderr
    assert [run["id"] for run in json.loads("\n".join(lines[:-1]))][0] == run_id
    assert (cache_folder / "m.csv").read_text().startswith("measure,perturbation")
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: the run store {path} is read-only (attempt to write a readonly database) — make it "
                      f"and its folder writable or choose another --store"], result.stderr
    assert "Traceback" not in result.stderr and digest(path) == before


# the cache reset ------------------------------------------------------------------------------------------------

def test_a_damaged_cache_names_the_reset_command_which_moves_it_aside_and_the_next_summarize_rebuilds_it(
        tmp_path, capsys):
    path = make_cache(tmp_path / "cache.sqlite")
    overwrite(path, page_offset(path, "summaries"), b"\xff" * 64)
    damaged = path.read_bytes()
    argv = ["summarize", "--summarizer", "lead-3", "--inputs", str(REPO / "data/demo/news.jsonl"),
            "--out", str(tmp_path / "s.jsonl"), "--cache", str(path)]
    assert main(argv) == 2
    line = one_error_line(capsys)
    assert f"the summary cache {path} is damaged" in line
    assert f"start a fresh cache with `python -m bias_core cache --reset --cache {path}`" in line
    assert main(["cache", "--reset", "--cache", str(path)]) == 0
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("cache.sqlite.corrupt-")]
    assert len(moved) == 1 and moved[0].read_bytes() == damaged
    assert f"moved the summary cache {path} aside to {moved[0]}" in capsys.readouterr().out
    assert user_version(path) == 1 and len(SummaryCache(path)) == 0
    assert main(argv) == 0
    assert len(SummaryCache(path)) == 16 and len((tmp_path / "s.jsonl").read_text().splitlines()) == 16


def test_cache_reset_moves_the_write_ahead_log_of_a_killed_process_with_the_file(tmp_path, capsys):
    path = tmp_path / "cache.sqlite"
    killed = ("import os, sys; from bias_core.common.records import Summary; from bias_core.summarize.cache import "
              "SummaryCache; SummaryCache(sys.argv[1]).put_many([('k', Summary('i', 'lead-3', 'in the log'))]); "
              "os._exit(0)")  # exits without closing: the summary is only in the -wal file
    subprocess.run([sys.executable, "-c", killed, str(path)], cwd=REPO, check=True, timeout=120)
    assert path.with_name("cache.sqlite-wal").stat().st_size > 0
    assert main(["cache", "--reset", "--cache", str(path)]) == 0
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("cache.sqlite.corrupt-")]
    assert sorted(p.name.removeprefix(moved[0].name.split("-wal")[0].split("-shm")[0]) for p in moved) == \
        ["", "-shm", "-wal"]
    main_file = min(moved, key=lambda p: len(p.name))
    assert SummaryCache(main_file).get_many(["k"])["k"].text == "in the log"  # the moved copy opens, log included
    assert len(SummaryCache(path)) == 0


def test_cache_command_reports_the_entries_of_a_healthy_cache(tmp_path, capsys):
    path = make_cache(tmp_path / "cache.sqlite")
    assert main(["cache", "--cache", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"{path}: 40 summaries, ")
