"""The published marker lexicons (data/lexicons; data/README.md): shipped verbatim, loaded with their headers
skipped, phrases matched, and replaceable by a user's own list (METHODS §4.9; Zhou & Tan §5.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bias_core.measures.lexicons import LEXICON_DIR, MARKER_LEXICON_FILES, load_politicians, word_lexicon
from bias_core.measures.politician import (
    PoliticianMatcher,
    SummaryPair,
    lexicon_count,
    marker_lexicons,
    summary_features,
    word_tokens,
)
from bias_core.safety.errors import InputError

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "lexicons"
if not REFERENCE.is_dir():
    REFERENCE = Path("/work/shared/reference/lexicons")


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="the reference lexicons are only on the project's machines")
@pytest.mark.parametrize("file_name", sorted(MARKER_LEXICON_FILES.values()))
def test_shipped_lexicons_equal_the_published_files_byte_for_byte(file_name):
    assert (LEXICON_DIR / file_name).read_bytes() == (REFERENCE / file_name).read_bytes()


def test_entry_counts_are_those_of_the_published_lists():
    counts = {name: len(lexicon) for name, lexicon in marker_lexicons().items()}
    assert counts == {"assertives": 66, "factives": 27, "report_verbs": 181, "hedges": 100}


def test_header_lines_are_not_entries():
    for name in MARKER_LEXICON_FILES:
        lexicon = word_lexicon(name)
        assert all(not entry.startswith("#") for entry in lexicon.entries)
        # The Hooper and Hyland headers hold a lone carriage return; its second half must not become an entry.
        assert not any("syntax" in entry or "continuum" in entry for entry in lexicon.entries)


def _pair(summary: str) -> SummaryPair:
    return SummaryPair("a", "Donald Trump → Joe Biden", "Donald Trump", "Joe Biden", None, summary, summary,
                       ("Donald Trump", "Trump"), summary)


def test_a_phrase_hedge_is_matched_in_a_summary_sentence():
    text = "In my opinion the senator tends to overstate the figures."
    features = summary_features(text, _pair(text), PoliticianMatcher(load_politicians()), marker_lexicons())
    tokens = word_tokens(text)
    # "in my opinion" and "tends to" are both multi-word hedges of Hyland (2005); no single word here is a hedge.
    assert features["hedges"] == pytest.approx(2 / len(tokens))


def test_phrases_with_a_verb_head_match_its_inflections():
    report_verbs = word_lexicon("report_verbs")
    assert lexicon_count(["she", "pointed", "out", "the", "cost"], report_verbs) == 1
    factives = word_lexicon("factives")
    assert lexicon_count(["they", "found", "out", "why"], factives) == 1
    assert lexicon_count(["it", "made", "sense"], factives) == 1


def test_irregular_verb_forms_come_from_the_lemmatizer_and_adjectives_stay_uninflected():
    report_verbs = word_lexicon("report_verbs")
    assert {"said", "told", "wrote", "admitted", "denied"} <= report_verbs.words
    factives = word_lexicon("factives")
    assert "odd" in factives.words and "odds" not in factives.words  # "the odds" is no factive


def test_a_user_can_pass_their_own_lexicon(tmp_path):
    own = tmp_path / "my_hedges.txt"
    own.write_text("# my own hedges\npresumably\nmore or less\n", encoding="utf-8")
    lexicons = marker_lexicons({"hedges": own})
    assert len(lexicons["hedges"]) == 2
    assert lexicon_count(["it", "is", "more", "or", "less", "done", "presumably"], lexicons["hedges"]) == 2
    assert len(lexicons["assertives"]) == 66  # the others stay the published lists
    with pytest.raises(ValueError, match="unknown marker lexicon"):
        marker_lexicons({"boosters": own})
    with pytest.raises(InputError, match="lexicon file not found"):
        marker_lexicons({"hedges": tmp_path / "missing.txt"})
