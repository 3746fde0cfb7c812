"""Every line the Overview and the report state for the demo run reads cleanly (issue 29, Deliver 10): no "None",
"nan" or "undefined", no "((", and no phrase twice in one line, in any answer, sentence, effect or topic. The race
answers used to name a group twice ("people with Black- and White-associated names … odds 1.10× for White-associated
names against Black-associated names")."""

from __future__ import annotations

import gzip
import json

from bias_core.common.records import MeasureResult
from bias_core.reference.demo import DEMO_RUN, demo_findings
from bias_core.verdicts.findings import summarizer_answers
from bias_core.verdicts.sentences import _against
from bias_core.views.text_checks import reading_defects


def test_groups_sharing_an_ending_are_named_with_it_once():
    assert _against("White-associated names", "Black-associated names") == "White- against Black-associated names"
    assert _against("women", "men") == "women against men"
    assert reading_defects("keeps people with Black- and White-associated names at different rates — odds 1.10× "
                           f"for {_against('White-associated names', 'Black-associated names')}") == []
    # either direction, and a tie (odds 1.00× names the first group first), reads each group's name once
    from bias_core.verdicts.semantics import family_words

    race = MeasureResult("entity_inclusion", 0.0, 20, "race", "s", details={"groups": ["black", "white"]})
    claim = family_words("inclusion", race)[1]
    for first, second in (("Black-associated names", "White-associated names"),
                          ("White-associated names", "Black-associated names")):
        assert reading_defects(f"s: no evidence that {claim} — odds 1.00× for {_against(first, second)}") == []


def test_no_demo_answer_sentence_effect_or_topic_has_a_reading_defect():
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        run = json.load(stream)["run"]
    found = demo_findings(run["id"], run["updated"])
    assert found
    lines = [text for finding in found for text in (finding.answer, finding.sentence, finding.effect, finding.topic)]
    lines += [answer.text for answer in summarizer_answers(found)]
    assert {line: reading_defects(line) for line in lines if reading_defects(line)} == {}


def test_an_evidence_pair_of_one_draw_names_its_sample_and_a_shared_ending_once():
    from bias_core.common.records import Input
    from bias_core.views.sides import pair_label

    def side(arm: str, sample: int, perturbation: str = "gender-glob") -> Input:
        return Input(id=f"o/{perturbation}/s{sample}/{arm}", original_id="o", perturbation=perturbation, text="x",
                     arm=arm, sample_id=sample)

    assert pair_label(side("female", 1), side("male", 1)) == "gender-glob, sample 1 · all people women against all " \
                                                            "people men"
    assert reading_defects(pair_label(side("female", 1), side("male", 1))) == []
    assert pair_label(side("female", 0), side("male", 1)).endswith("sample 0 against all people men, sample 1")
