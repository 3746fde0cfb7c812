"""Measure options a user sets (issue 10): paired identifiers, degenerate summaries and own marker lexicons, through
the real `measure` command and a real audit; each changes the result it should and is recorded."""

from __future__ import annotations

import json

from bias_core.cli import main
from bias_core.common.records import Input, Substitution, Summary
from bias_core.documents.record_files import write_jsonl
from bias_core.runs.store import RunStore

LOOP = "Council news || || || || || || || || || || || ||"


def glob_inputs(n: int = 3) -> list[Input]:
    return [Input(id=f"d{i}/{arm}", original_id=f"d{i}", sample_id=0, perturbation="gender-glob", arm=arm,
                  text=f"Article {i} about the council.") for i in range(n) for arm in ("female", "male")]


def glob_summaries(inputs: list[Input], loop: bool = False) -> list[Summary]:
    out = []
    for item in inputs:
        index = item.original_id[1:]
        if loop and item.id == "d0/female":
            out.append(Summary(item.id, "lead-3", LOOP))
        elif item.arm == "female":
            out.append(Summary(item.id, "lead-3", f"Her husband spoke on day {index}. The husband agreed."))
        else:
            out.append(Summary(item.id, "lead-3", f"His wife spoke on day {index}. The wife agreed."))
    return out


def measure(tmp_path, inputs, summaries, *options) -> list[dict]:
    write_jsonl(tmp_path / "inputs.jsonl", inputs)
    write_jsonl(tmp_path / "summaries.jsonl", summaries)
    out = tmp_path / "measures.json"
    code = main(["measure", "--inputs", str(tmp_path / "inputs.jsonl"), "--summaries",
                 str(tmp_path / "summaries.jsonl"), "--out", str(out), "--bootstrap", "50", *options])
    assert code == 0
    return json.loads(out.read_text())["results"]


def fightin_terms(results: list[dict]) -> tuple[dict, set[str]]:
    (result,) = [r for r in results if r["measure"] == "fightin_words"]
    details = result["details"]
    terms = {row["term"] for side in ("female", "male") for row in details[f"top_{side}"]}
    return details, terms


def test_husband_and_wife_are_separate_terms_by_default_and_one_paired_token_when_extended(tmp_path):
    inputs = glob_inputs()
    summaries = glob_summaries(inputs)
    default, default_terms = fightin_terms(measure(tmp_path, inputs, summaries, "--measure", "fightin_words"))
    assert default["paired_identifiers"] == "steen-markert"
    assert {"husband", "wife"} <= default_terms
    assert [row["term"] for row in default["top_female"]][0] == "husband"
    extended, extended_terms = fightin_terms(measure(tmp_path, inputs, summaries, "--measure", "fightin_words",
                                                     "--paired-identifiers", "extended"))
    assert extended["paired_identifiers"] == "extended"
    assert "husband" not in extended_terms and "wife" not in extended_terms
    # one token, used as often by both arms: not associated with either side
    assert "husband/wife" not in extended_terms


def test_a_users_pairs_file_merges_exactly_its_pairs(tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("# my pairs\nhusband\twife\n")
    inputs = glob_inputs()
    details, terms = fightin_terms(measure(tmp_path, inputs, glob_summaries(inputs), "--measure", "fightin_words",
                                           "--paired-identifiers", str(pairs)))
    assert details["paired_identifiers"] == str(pairs)
    assert not {"husband", "wife"} & terms
    # "her" and "his" are not in the user's pairs: they stay apart and separate the arms
    assert {"her", "his"} <= terms


def test_a_degenerate_separator_run_summary_is_excluded_and_counted_by_default_and_kept_with_the_flag(tmp_path):
    inputs = glob_inputs()
    summaries = glob_summaries(inputs, loop=True)
    default, default_terms = fightin_terms(measure(tmp_path, inputs, summaries, "--measure", "fightin_words"))
    assert default["n_degenerate_excluded"] == 1
    assert default["degenerate_excluded"] == [{"input_id": "d0/female", "reason": "separator run"}]
    assert not any("|" in term for term in default_terms)
    assert "include_degenerate" not in default
    kept, kept_terms = fightin_terms(measure(tmp_path, inputs, summaries, "--measure", "fightin_words",
                                             "--include-degenerate"))
    assert kept["n_degenerate_excluded"] == 0 and kept["n_degenerate_included"] == 1
    assert kept["include_degenerate"] is True
    assert any("|" in term for term in kept_terms)


def politician_inputs() -> list[Input]:
    inputs = []
    for index in range(3):
        text = f"Donald Trump spoke in Ohio on day {index}. Republicans cheered."
        extra = {"pair": "Donald Trump=Joe Biden"}
        inputs.append(Input(id=f"p{index}/orig", original_id=f"p{index}", sample_id=0, perturbation="politician",
                            role="original", arm="Donald Trump", text=text, extra=extra))
        inputs.append(Input(id=f"p{index}/swap", original_id=f"p{index}", sample_id=0, perturbation="politician",
                            role="swap1", arm="Joe Biden", text=text.replace("Donald Trump", "Joe Biden"),
                            substitutions=[Substitution(0, 12, "Donald Trump", "Joe Biden", "politician_name",
                                                        "politician")], extra=extra))
    return inputs


def politician_summaries(inputs: list[Input]) -> list[Summary]:
    # The swapped arm's summaries say "seemingly" and "arguably" (in neither arm's originals); only the user's
    # hedges list below has them, the shipped Hyland list has neither.
    return [Summary(item.id, "lead-3", f"Trump spoke in Ohio on day {item.original_id[1:]}." if item.role == "original"
                    else f"Biden seemingly spoke, arguably in Ohio on day {item.original_id[1:]}.")
            for item in inputs]


def hedges_row(results: list[dict]) -> tuple[dict, dict]:
    (result,) = [r for r in results if r["measure"] == "politician_features"]
    (row,) = [row for row in result["details"]["rows"] if row["feature"] == "hedges"]
    return result["details"], row


def test_a_users_hedges_file_changes_the_hedges_feature_and_is_recorded(tmp_path):
    from bias_core.measures.lexicons import word_lexicon

    shipped = word_lexicon("hedges", inflect=False)
    assert not {"seemingly", "arguably"} & shipped.words
    inputs = politician_inputs()
    summaries = politician_summaries(inputs)
    details, row = hedges_row(measure(tmp_path, inputs, summaries, "--measure", "politician_features"))
    assert details["lexicons"]["hedges"] == "shipped"
    assert row["mean_difference"] == 0
    own = tmp_path / "my_hedges.txt"
    own.write_text("# my hedges\nseemingly\narguably\n")
    details, row = hedges_row(measure(tmp_path, inputs, summaries, "--measure", "politician_features",
                                      "--lexicon", f"hedges={own}"))
    assert details["lexicons"] == {"assertives": "shipped", "factives": "shipped", "report_verbs": "shipped",
                                   "hedges": str(own)}
    assert row["mean_treated"] > 0 and row["mean_control"] == 0


def test_an_audit_config_sets_the_options_records_them_and_a_default_config_still_resumes(tmp_path, capsys):
    from bias_core.reference.demo import DEMO_NEWS

    hedges = tmp_path / "hedges.txt"
    hedges.write_text("perhaps\n")
    base = (f'[corpus]\npath = "{DEMO_NEWS}"\n[[summarizers]]\nname = "lead-3"\n'
            '[measures]\nnames = ["entity_inclusion"]\nbootstrap = 20\n')
    store_path = tmp_path / "runs.sqlite"
    plain = tmp_path / "plain.toml"
    plain.write_text(base)
    explicit = tmp_path / "explicit.toml"
    explicit.write_text(base + 'paired_identifiers = "steen-markert"\ninclude_degenerate = false\n')
    chosen = tmp_path / "chosen.toml"
    # a relative lexicon path is found next to the config, like the corpus
    chosen.write_text(base + 'paired_identifiers = "extended"\ninclude_degenerate = true\n'
                      '[measures.lexicons]\nhedges = "hedges.txt"\n')
    for path in (plain, explicit, chosen):
        assert main(["audit", "--config", str(path), "--store", str(store_path), "--quiet"]) == 0
    store = RunStore(store_path)
    runs = sorted(store.list_runs(), key=lambda run: run.created)
    by_hash: dict[str, list] = {}
    for run in runs:
        by_hash.setdefault(run.config_hash, []).append(store.get_run(run.id).config)
    # the explicit defaults hash (and are stored) like the plain config, so a run stored before the options existed
    # is still this audit; the non-default choices are another audit, recorded in its config
    assert sorted(len(configs) for configs in by_hash.values()) == [1, 2]
    (same,) = [configs for configs in by_hash.values() if len(configs) == 2]
    assert same[0] == same[1] and not {"paired_identifiers", "include_degenerate", "lexicons"} & set(same[0])
    ((recorded,),) = [configs for configs in by_hash.values() if len(configs) == 1]
    assert recorded["paired_identifiers"] == "extended" and recorded["include_degenerate"] is True
    assert recorded["lexicons"] == {"hedges": str(hedges)}


def test_paired_identifiers_reach_the_highsim_lowsim_fightin_words_of_politician_summaries(tmp_path):
    words = "spoke in Ohio about taxes jobs schools roads and farms today".split()
    inputs, summaries = [], []
    for index in range(8):
        # the most similar pairs' articles mention a husband, the least similar a wife
        extra_word = "husband" if index < 2 else "wife" if index >= 6 else "council"
        text = f"Donald Trump spoke in Ohio. The {extra_word} of the mayor and the {extra_word} of the judge came."
        pair = {"pair": "Donald Trump=Joe Biden"}
        inputs.append(Input(id=f"p{index}/orig", original_id=f"p{index}", sample_id=0, perturbation="politician",
                            role="original", arm="Donald Trump", text=text, extra=pair))
        inputs.append(Input(id=f"p{index}/swap", original_id=f"p{index}", sample_id=0, perturbation="politician",
                            role="swap1", arm="Joe Biden", text=text.replace("Donald Trump", "Joe Biden"),
                            substitutions=[Substitution(0, 12, "Donald Trump", "Joe Biden", "politician_name",
                                                        "politician")], extra=pair))
        summaries.append(Summary(f"p{index}/orig", "lead-3", " ".join(["Trump", *words])))
        summaries.append(Summary(f"p{index}/swap", "lead-3", " ".join(["Biden", *words[:len(words) - index]])))

    def table(*options) -> tuple[dict, set[str]]:
        results = measure(tmp_path, inputs, summaries, "--measure", "summary_similarity", *options)
        (result,) = [r for r in results if r["measure"] == "summary_similarity"]
        details = result["details"]["fightin_words"]
        return details, {row["term"] for side in ("highsim", "lowsim") for row in details[f"top_{side}"]}

    default, default_terms = table()
    assert default["paired_identifiers"] == "steen-markert"
    assert {"husband", "wife"} <= default_terms
    extended, extended_terms = table("--paired-identifiers", "extended")
    assert extended["paired_identifiers"] == "extended"
    assert not {"husband", "wife"} & extended_terms
