"""Where the project's shipped files live, named once so that no module counts its own depth in the tree."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # bias_core/
PROJECT_DIR = PACKAGE_DIR.parent  # the checkout: data/, docs/, requirements.txt
DATA_DIR = PROJECT_DIR / "data"
DEMO_DIR = DATA_DIR / "demo"
DEMO_NEWS = DEMO_DIR / "news.jsonl"  # invented articles: a test corpus
DEMO_REVIEWS = DEMO_DIR / "reviews.jsonl"
DEMO_RUN = DEMO_DIR / "demo_run.json.gz"
DEMO_FINDINGS = DEMO_DIR / "demo_findings.json.gz"
DEMO_VIEWS = DEMO_DIR / "demo_views.json.gz"
REAL_NEWS = DATA_DIR / "news_real" / "wikinews.jsonl"  # the demo's articles (Wikinews, CC BY 2.5)


def files_digest(paths: Iterable[Path]) -> str:
    """A SHA-256 of the files' names and contents, in order (a missing file counts as empty): what stored results
    computed from them (the demo run's findings and views, a run's kept views) are checked against."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()
