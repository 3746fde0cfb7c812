"""Memory the app keeps for browser tabs with large uploads (issue 23): N sessions (AppTest, one process, as the
server runs them) each upload a different CSV of about MiB mebibytes on the Corpus page; the resident memory is
printed before, with the sessions open, and after they end, with the documents the server's workspaces still hold.
(A closed AppTest leaves its last page's variables alive, so part of what stays is the harness's, not the app's.)

    .venv/bin/python benchmarks/workspace_memory.py [N] [MiB]
"""

from __future__ import annotations

import csv
import ctypes
import gc
import io
import os
import random
import sys
import time
from pathlib import Path

import psutil

REPO = Path.cwd()
sys.path.insert(0, str(REPO))
os.environ.setdefault("SUMMBIAS_NO_DEMO", "1")


def reviews_csv(mebibytes: float, seed: int) -> bytes:
    """Review units (doc_id, text, stars), 20 per document, up to ``mebibytes``."""
    words = "the battery sound case great poor awful lovely cheap broke works fine loud quiet strap".split()
    rng = random.Random(seed)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["doc_id", "text", "stars"])
    row = 0
    while buffer.tell() < mebibytes * 2**20:
        writer.writerow([f"p{seed}-{row // 20}", " ".join(rng.choice(words) for _ in range(rng.randint(10, 40))),
                         rng.randint(1, 5)])
        row += 1
    return buffer.getvalue().encode()


def settled_rss(process: psutil.Process) -> int:
    """Resident memory after a full collection, with freed heap pages handed back to the system (glibc keeps them
    otherwise, and RSS would count memory nothing uses)."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    return process.memory_info().rss


def kept_documents() -> int:
    """The documents reachable from the server's workspaces (through data, not classes or modules)."""
    import types

    from bias_core.common.records import Document
    from pages.parts import workspace

    seen, todo, found = set(), [workspace._workspaces()], 0
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(item))
        found += isinstance(item, Document)
        todo.extend(gc.get_referents(item))
    return found


def main() -> None:
    from streamlit.testing.v1 import AppTest

    sessions, mebibytes = int(sys.argv[1]) if len(sys.argv) > 1 else 8, float(sys.argv[2]) if len(sys.argv) > 2 else 19
    process = psutil.Process()
    start = settled_rss(process)
    apps = []
    began = time.perf_counter()
    for index in range(sessions):
        app = AppTest.from_file(str(REPO / "app.py"), default_timeout=600)
        app.run()
        app.switch_page("pages/corpus.py").run()
        app.radio(key="corpus_choice").set_value("Upload a file").run()
        app.file_uploader(key="corpus_upload").upload(f"reviews-{index}.csv", reviews_csv(mebibytes, index),
                                                      "text/csv").run()
        assert not app.exception, app.exception
        assert len(app.session_state["documents"]) > 100
        apps.append(app)
    open_rss, open_documents = settled_rss(process), kept_documents()
    apps.clear()
    closed_rss, closed_documents = settled_rss(process), kept_documents()
    print(f"{sessions} sessions × {mebibytes:g} MiB CSV ({time.perf_counter() - began:.0f} s): RSS at start "
          f"{start / 2**20:.0f} MiB; sessions open {open_rss / 2**20:.0f} MiB (+{(open_rss - start) / 2**20:.0f}), "
          f"workspaces hold {open_documents} documents; after they ended {closed_rss / 2**20:.0f} MiB "
          f"(+{(closed_rss - start) / 2**20:.0f}), workspaces hold {closed_documents} documents")


if __name__ == "__main__":
    main()
