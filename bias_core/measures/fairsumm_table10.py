"""Zhang et al.'s Table 10 (Yelp, N-gram) recomputed with the FairSumm authors' pipeline (``fairsumm_ngram``) from
their released outputs: ``table10_cells``, to set beside ``fairsumm_ngram.TABLE10_PUBLISHED``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from bias_core.measures.fairsumm_ngram import (
    FAIRSUMM_NGRAM,
    TABLE10_INPUTS,
    TABLE10_SUMMARIES,
    check_nltk_data,
    missing_nltk_data,
    prepend_nltk_path,
    sample_units,
)
from bias_core.safety.errors import InputError


def table10_cells(reference_dir: str | os.PathLike, nltk_data: str | os.PathLike | None = None
                  ) -> dict[str, dict[str, float]]:
    """Return Zhang et al.'s Table 10 Yelp N-gram cells recomputed with this matching from the authors' released
    outputs: {"GPT-4": {"BUR": …, "UER": …}, "Alpaca": {…}}, in %, unrounded (published: ``TABLE10_PUBLISHED``).

    ``reference_dir`` holds ``yelp1500_inputs.jsonl.gz`` and the two summaries files (summbias's inputs and summaries
    formats, gzipped; see that folder's README). The NLTK data comes from NLTK's data path; ``nltk_data`` adds a
    folder to it first. When the data is not installed and ``reference_dir/../nltk_data`` holds the pickle-era
    reference copy, that copy is converted once (``nltk_reference.modern_nltk_data``) and used.
    """
    from bias_core.common.records import Input, Summary
    from bias_core.measures.common import pair_summaries
    from bias_core.measures.perspective_scores import sample_fairness

    folder = Path(reference_dir)
    if nltk_data is not None:
        prepend_nltk_path(Path(nltk_data))
    elif missing_nltk_data() and (folder.parent / "nltk_data").is_dir():
        from bias_core.measures.nltk_reference import modern_nltk_data

        prepend_nltk_path(modern_nltk_data(folder.parent / "nltk_data"))
    check_nltk_data("table10_cells")
    inputs = [Input.from_dict(record) for record in _jsonl_gz(folder / TABLE10_INPUTS)]
    cells = {}
    for model, name in TABLE10_SUMMARIES.items():
        pairs = pair_summaries(inputs, [Summary.from_dict(record) for record in _jsonl_gz(folder / name)])
        units = sample_units(pairs, null="shuffle")
        scores = [score for score in sample_fairness(pairs, matching=FAIRSUMM_NGRAM, prepared=units)[0]
                  if score is not None]
        cells[model] = {"BUR": 100 * float(np.mean([s.bur for s in scores])),
                        "UER": 100 * float(np.mean([s.uer for s in scores]))}
    return cells


def _jsonl_gz(path: Path) -> list[dict]:
    """The records of a gzipped JSONL file: only a regular file, and at most the documents' limit of it, compressed
    and decompressed (issue 30); a line that is not a JSON object or nests too deep is one line naming it."""
    from bias_core.documents.decoding import gunzip, read_named_file
    from bias_core.documents.jsonl import jsonl_objects

    if not path.exists():
        raise InputError(str(path), "no such file", hint="the FairSumm reference folder's README lists its files")
    return [record for _, record in jsonl_objects(str(path), gunzip(str(path), read_named_file(path)))]
