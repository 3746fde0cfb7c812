"""The bundled demo corpus (``data/demo``), so the app and examples open with documents in place."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
DEMO_NEWS = DATA_DIR / "demo" / "news.jsonl"
DEMO_REVIEWS = DATA_DIR / "demo" / "reviews.jsonl"
