"""The bundled demo corpus (``data/demo``), so the app and examples open with documents in place, and the demo run's
findings (issue 13) and page views (issue 31) stored beside its bundle, so the app's pages show them without computing
anything."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import TYPE_CHECKING

from bias_core.common.paths import (
    DEMO_FINDINGS,
    DEMO_NEWS,
    DEMO_REVIEWS,
    DEMO_RUN,
    DEMO_VIEWS,
    PACKAGE_DIR,
    PROJECT_DIR,
    files_digest,
)

if TYPE_CHECKING:
    from bias_core.verdicts.findings import Finding

__all__ = ["DEMO_FINDINGS", "DEMO_NEWS", "DEMO_REVIEWS", "DEMO_RUN", "DEMO_VIEWS", "FINDINGS_SOURCES",
           "demo_findings", "demo_views", "ensure_demo_run", "findings_key", "views_key",
           "write_demo_findings", "write_demo_views"]

# What the demo run's findings are computed from besides the bundle: the modules that turn stored results into
# findings and the pinned libraries. A change to any of them makes the stored findings stale; they are then computed
# as for any other run until `python -m bias_core.reference.demo` writes them again.
FINDINGS_SOURCES = (*(PACKAGE_DIR / "verdicts" / f"{name}.py" for name in ("semantics", "significance", "judge",
                                                                         "sentences", "evidence", "findings",
                                                                         "controls")),
                    PACKAGE_DIR / "common" / "stats.py",
                    PACKAGE_DIR / "compare" / "diff.py", PACKAGE_DIR / "common" / "records.py",
                    PROJECT_DIR / "requirements.txt")


def ensure_demo_run(store) -> str | None:
    """Import the precomputed demo run into the store unless it is there already; return its id (None if the
    bundle is not shipped). Importing is one transaction, so the demo shows results in a second."""
    if not DEMO_RUN.is_file():
        return None
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    run_id = bundle["run"]["id"]
    if not store.has_run(run_id):
        store.import_run(bundle)
        views = demo_views()
        if views is not None:  # what the result pages need first, computed when the views were written
            from bias_core.views.precomputed import fingerprint

            store.set_views(run_id, fingerprint(*store.record_counts(run_id)), views)
    return run_id


# What the demo run's precomputed page views are computed from besides the bundle: ``views.precomputed.SOURCES``.


def views_key() -> str:
    """A hash of everything the demo run's page views depend on (a missing file counts as empty)."""
    from bias_core.views.precomputed import SOURCES

    return files_digest((DEMO_RUN, *SOURCES))


def demo_views() -> dict | None:
    """The demo run's page views as shipped, or None where they are stale (``views_key``) or missing."""
    if not DEMO_VIEWS.is_file():
        return None
    with gzip.open(DEMO_VIEWS, "rt", encoding="utf-8") as stream:
        stored = json.load(stream)
    return stored["views"] if stored.get("key") == views_key() else None


def write_demo_views(path: Path = DEMO_VIEWS) -> None:
    """Compute the demo run's page views on the bundle imported into a scratch store and write them with
    ``views_key``."""
    import tempfile

    from bias_core.runs.store import RunStore
    from bias_core.views.precomputed import compute_views

    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "runs.sqlite")
        try:
            with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
                run_id = store.import_run(json.load(stream))
            views = compute_views(store.inputs(run_id), store.summaries(run_id), store.measures(run_id),
                                  store.get_run(run_id).config)
        finally:
            store.close()
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as stream:
        stream.write(json.dumps({"key": views_key(), "views": views}, ensure_ascii=False,
                                sort_keys=True).encode("utf-8"))


def findings_key() -> str:
    """A hash of everything the demo run's findings depend on: the bundle and ``FINDINGS_SOURCES`` (a missing file
    counts as empty)."""
    return files_digest((DEMO_RUN, *FINDINGS_SOURCES))


def write_demo_findings(path: Path = DEMO_FINDINGS) -> int:
    """Compute the demo run's findings (``bias_core.verdicts.findings.run_findings`` on the bundle imported into a
    scratch store) and write them with the run's id, its ``updated`` time and ``findings_key``; return how many."""
    import tempfile

    from bias_core.runs.store import RunStore
    from bias_core.verdicts.findings import finding_as_dict, run_findings

    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "runs.sqlite")
        try:
            run_id = ensure_demo_run(store)
            if run_id is None:
                raise FileNotFoundError(f"the demo bundle {DEMO_RUN} is missing")
            updated = store.get_run(run_id).updated
            found = run_findings(store, run_id)
        finally:
            store.close()
    payload = {"key": findings_key(), "run_id": run_id, "updated": updated,
               "findings": [finding_as_dict(finding) for finding in found]}
    # mtime=0: the same findings give the same bytes, so a rebuild without changes leaves git clean.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as stream:
        stream.write(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    return len(found)


def demo_findings(run_id: str, updated: float, path: Path = DEMO_FINDINGS) -> list[Finding] | None:
    """The stored findings of the demo run — equal to what ``run_findings`` returns for it — or None where they do
    not apply: another run, the demo run changed since it was imported (``updated``), or the bundle, code or pinned
    libraries changed since they were written (``findings_key``)."""
    if not path.is_file():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        stored = json.load(stream)
    if stored.get("run_id") != run_id or stored.get("updated") != updated or stored.get("key") != findings_key():
        return None
    from bias_core.verdicts.findings import finding_from_dict

    return [finding_from_dict(item) for item in stored["findings"]]


if __name__ == "__main__":
    count = write_demo_findings()
    print(f"wrote {DEMO_FINDINGS} ({count} findings of the demo run)")
    write_demo_views()
    print(f"wrote {DEMO_VIEWS} (what the result pages need first)")
