"""What the result pages need on their first render, computed once when a run ends and stored with it (issue 31,
Deliver 6): the findings (the Overview), the output quality line, the flagged and the degenerate summaries, Compare's
default ranking, the PERSON spans of every summary (Compare's alignment, without loading spaCy on the page), and the
Fightin' Words view the page opens on with its table.

Each piece is exactly what the page would compute from the run's records (``compute_views`` calls the same
functions), so a stored piece and a recomputed one never differ; the pages recompute whatever is missing (a run from
before this version, one still running) and keep it. A stored set belongs to one state of the run and one version of
the code: its fingerprint names the counts of inputs, summaries and measure results it was computed from and a hash
of ``SOURCES``, and a set whose fingerprint differs is ignored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any

from bias_core.common.paths import files_digest
from bias_core.common.records import Input, MeasureResult, Summary

PACKAGE = Path(__file__).resolve().parents[1]
# The code every piece is computed by (and the pinned libraries): a change to any of them makes stored sets stale.
SOURCES = (*(PACKAGE / path for path in (
    "views/precomputed.py", "views/fightin_words_view.py", "measures/quality.py", "measures/alignment.py",
    "measures/written_names.py", "measures/fightin_words.py", "measures/fightin_words_power.py", "compare/diff.py",
    "compare/units.py", "common/nlp.py", "common/stats.py", "common/records.py")),
    *sorted((PACKAGE / "verdicts").glob("*.py")), PACKAGE.parent / "requirements.txt")


@cache
def code_hash() -> str:
    """A hash of ``SOURCES`` (``paths.files_digest``), once per process."""
    return files_digest(SOURCES)[:16]


def fingerprint(inputs: int, summaries: int, measures: int) -> str:
    """The state of a run, and the code, a stored set belongs to."""
    return f"{code_hash()}:{inputs}:{summaries}:{measures}"


def text_key(text: str) -> str:
    """The key of a summary text in ``person_spans`` (identical texts share their spans)."""
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:16]


def flagged_pairs(inputs: Iterable[Input], summaries: Iterable[Summary]) -> frozenset[tuple[str, str]]:
    """(input id, summarizer) of every summary cut at the token limit, degenerate or with a glitch
    (``quality.summary_flags`` against its input)."""
    from bias_core.measures.quality import summary_flags

    source = {item.id: item.text for item in inputs}
    return frozenset((s.input_id, s.summarizer) for s in summaries if summary_flags(s, source.get(s.input_id)))


def degenerate_pairs(summaries: Iterable[Summary]) -> frozenset[tuple[str, str]]:
    """(input id, summarizer) of every degenerate summary (``quality.summary_degenerate_reason``: left out of every
    measure)."""
    from bias_core.measures.quality import summary_degenerate_reason

    return frozenset((s.input_id, s.summarizer) for s in summaries if summary_degenerate_reason(s))


def quality_caveat(summaries: Iterable[Summary]) -> str:
    """The output quality line (``quality.output_quality_caveat``; "" when every output ended on its own)."""
    from bias_core.measures.quality import output_quality_caveat

    return output_quality_caveat(summaries) or ""


def findings_data(measures: Sequence[MeasureResult], inputs: Sequence[Input],
                  summaries: Sequence[Summary]) -> list[dict[str, Any]]:
    """The run's findings (``verdicts.findings.findings``, with evidence pairs) as ``finding_as_dict`` writes them."""
    from bias_core.verdicts.findings import finding_as_dict, findings

    return [finding_as_dict(finding) for finding in findings(measures, inputs, summaries)]


def default_ranking(inputs: Sequence[Input], summaries: Sequence[Summary]) -> list[dict[str, Any]]:
    """Compare's ranking as it opens: every summarizer, every perturbation, no summary left out."""
    from bias_core.compare.diff import rank_originals

    return [asdict(row) for row in rank_originals(inputs, summaries)]


def person_spans(summaries: Iterable[Summary]) -> dict[str, list[list[Any]]]:
    """The PERSON spans (text, end offset) of every distinct summary text, by ``text_key``."""
    from bias_core.measures.alignment import summary_person_spans

    texts = list(dict.fromkeys(s.text for s in summaries))
    return {text_key(text): [list(span) for span in spans]
            for text, spans in zip(texts, summary_person_spans(texts), strict=True)}


def fightin_words_view(inputs: Sequence[Input], summaries: Sequence[Summary],
                       measures: Iterable[MeasureResult]) -> list[str] | None:
    """The (perturbation, summarizer) the Fightin' Words page opens on (``fightin_words_view.best_view``)."""
    from bias_core.views.fightin_words_view import best_view

    tested = {(r.perturbation, r.summarizer) for r in measures if r.measure == "fightin_words"}
    view = best_view(inputs, summaries, tested=tested)
    return None if view is None else list(view)


def fightin_words_table(inputs: Sequence[Input], summaries: Sequence[Summary], view: Sequence[str], *, seed: int,
                        paired_identifiers: str) -> dict[str, Any]:
    """The Fightin' Words page's opening table: ``view``'s first two arms, uninformative prior, as
    ``fightin_words_view.arm_comparison`` computes it with the run's seed and paired identifiers."""
    from bias_core.views.fightin_words_view import arm_comparison, arm_texts

    perturbation, summarizer = view
    arms = sorted({item.arm for item in inputs if item.perturbation == perturbation and item.arm})[:2]
    result = arm_comparison(arm_texts(inputs, summaries, perturbation, summarizer), *arms, prior="uninformative",
                            seed=seed, paired_identifiers=paired_identifiers)
    return {"view": [perturbation, summarizer, *arms], "result": asdict(result)}


def table_of(piece: dict[str, Any], label_a: str, label_b: str):
    """The ``FightinWordsResult`` of a kept ``fightin_words_table``, its sides named ``label_a`` and ``label_b``."""
    from bias_core.measures.fightin_words import FightinWordsResult, TermScore

    fields = {**piece["result"], "label_a": label_a, "label_b": label_b}
    return FightinWordsResult(**{**fields, "terms": [TermScore(**term) for term in fields["terms"]]})


def compute_views(inputs: Sequence[Input], summaries: Sequence[Summary], measures: Sequence[MeasureResult],
                  config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every piece, as JSON-ready data; ``config`` is the run's stored config (its seed and paired identifiers)."""
    from bias_core.measures.fightin_words import DEFAULT_PAIRED_IDENTIFIERS

    config = config or {}
    view = fightin_words_view(inputs, summaries, measures) or []  # []: no view to open on
    return {"findings": findings_data(measures, inputs, summaries), "quality_caveat": quality_caveat(summaries),
            "degenerate": sorted(degenerate_pairs(summaries)),
            "flagged": sorted(flagged_pairs(inputs, summaries)), "ranking": default_ranking(inputs, summaries),
            "person_spans": person_spans(summaries), "fightin_words_view": view,
            "fightin_words_table": fightin_words_table(
                inputs, summaries, view, seed=int(config.get("seed", 0)),
                paired_identifiers=str(config.get("paired_identifiers", DEFAULT_PAIRED_IDENTIFIERS))) if view else {}}


PIECES = ("findings", "quality_caveat", "degenerate", "flagged", "ranking", "person_spans", "fightin_words_view",
          "fightin_words_table")


def precompute(store, run_id: str) -> None:
    """Compute and store every piece for the run as it is now (the end of a run)."""
    inputs, summaries, measures = store.inputs(run_id), store.summaries(run_id), store.measures(run_id)
    store.set_views(run_id, fingerprint(len(inputs), len(summaries), len(measures)),
                    compute_views(inputs, summaries, measures, store.get_run(run_id).config))


def stored_piece(store, run_id: str, piece: str) -> Any | None:
    """One stored piece of the run as it is now; None when it was not kept for this state of the run."""
    views = store.views(run_id, fingerprint(*store.record_counts(run_id)))
    return None if views is None else views.get(piece)


def keep_piece(store, run_id: str, piece: str, value: Any) -> None:
    """Keep one piece a page had to compute (a run from before this version, an imported one), beside the others
    kept for the same state of the run."""
    store.set_views(run_id, fingerprint(*store.record_counts(run_id)), {piece: value}, merge=True)


def kept_for_older_code(store, run_id: str) -> bool:
    """Whether the run's views were kept for its present records but by another version of the code (summbias was
    upgraded since the run ended): computing them again gives the pages their speed back."""
    now = fingerprint(*store.record_counts(run_id))
    kept = store.views_fingerprints(run_id)
    return now not in kept and any(stamp.split(":", 1)[1] == now.split(":", 1)[1] for stamp in kept)
