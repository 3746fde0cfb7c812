"""The bundled demo corpus (``data/demo``), so the app and examples open with documents in place."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
DEMO_NEWS = DATA_DIR / "demo" / "news.jsonl"
DEMO_REVIEWS = DATA_DIR / "demo" / "reviews.jsonl"
DEMO_RUN = DATA_DIR / "demo" / "demo_run.json.gz"


def ensure_demo_run(store) -> str | None:
    """Import the precomputed demo run into the store unless it is there already; return its id (None if the
    bundle is not shipped). Importing is one transaction, so the demo shows results in a second."""
    import gzip
    import json

    if not DEMO_RUN.is_file():
        return None
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    run_id = bundle["run"]["id"]
    if not store.has_run(run_id):
        store.import_run(bundle)
    return run_id
