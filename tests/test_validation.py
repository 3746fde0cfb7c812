"""Parameter validation: one declared spec per summarizer, checked before anything is built; config and option
checks shared by the CLI, the launcher and the worker."""

from __future__ import annotations

import dataclasses
import inspect
import os

import pytest

from bias_core.runs.config import AuditConfig, ConfigError, CorpusSpec, StageSpec
from bias_core.safety.errors import InputError, SummarizerError
from bias_core.safety.validation import SEED_MAX, Param, ParamError, check_output_path, check_params
from bias_core.summarize import get_summarizer
from bias_core.summarize.base import _REGISTRY, Summarizer, check_summarizer
from bias_core.summarize.prompts import PromptSettings


def test_a_param_accepts_values_of_its_type_in_range_and_names_the_problem_otherwise():
    damping = Param(float, above=0, below=1)
    assert damping.check("damping", 0.5) == 0.5
    with pytest.raises(ParamError, match=r"damping = 5 is out of range: it must be a number > 0 and < 1"):
        damping.check("damping", 5)
    with pytest.raises(ParamError, match=r"damping = 'abc' is not a number"):
        damping.check("damping", "abc")
    with pytest.raises(ParamError, match="is not a number"):
        damping.check("damping", True)  # bool is an int in Python, never a number here
    with pytest.raises(ParamError, match="is not a number"):
        damping.check("damping", float("nan"))
    count = Param(int, minimum=1)
    assert count.check("k", 3) == 3
    with pytest.raises(ParamError, match="k = 2.5 is not an integer"):
        count.check("k", 2.5)
    assert Param(int, optional=True).check("n", None) is None
    with pytest.raises(ParamError, match="favour = 'x' must be one of topic, female"):
        Param(str, choices=("topic", "female")).check("favour", "x")


def test_an_integer_given_for_a_number_becomes_a_float():
    assert isinstance(Param(float).check("x", 1), float)


def test_unknown_parameters_are_refused_with_the_allowed_ones_and_a_suggestion():
    with pytest.raises(ParamError) as caught:
        check_params({"k": Param(int), "damping": Param(float)}, {"dampng": 0.5})
    assert str(caught.value) == "unknown parameter 'dampng' (did you mean 'damping'?); allowed: k, damping"


@pytest.mark.parametrize(("name", "params", "expected"), [
    ("textrank", {"damping": 5}, "summarizer 'textrank' has bad parameters: damping = 5 is out of range"),
    ("textrank", {"damping": "abc"}, "summarizer 'textrank' has bad parameters: damping = 'abc' is not a number"),
    ("lexrank", {"damping": 1}, "damping = 1 is out of range"),
    ("lead-0", {}, "summarizer 'lead-0' has bad parameters: k = 0 is out of range: it must be an integer ≥ 1"),
    ("lead-3", {"k": 4}, "k is set by the name 'lead-3'"),
    ("random-3", {"seed": 10**20}, "seed = 100000000000000000000 is out of range"),
    ("sexist", {"favour": "x"}, "favour = 'x' must be one of topic, female, male"),
    ("topic", {"k": 3}, "unknown parameter 'k'; allowed: seed"),
    ("openai:m", {"max_tokens": "10**9"}, "max_tokens = '10**9' is not an integer"),
    ("openai:m", {"max_tokens": 10**9}, "max_tokens = 1000000000 is out of range"),
    ("openai:m", {"concurrency": "abc"}, "concurrency = 'abc' is not an integer"),
    ("openai:m", {"temperature": 3}, "temperature = 3 is out of range"),
    ("hf:some/model", {"max_new_tokens": 0}, "max_new_tokens = 0 is out of range"),
    ("hf:some/model", {"perspective_template": "nope"}, "perspective_template = 'nope' must be one of"),
    ("hf:some/model", {"model": "other"}, "model is set by the name 'hf:some/model'"),
    ("smollm2", {"max_new_tokens": "many"},
     "summarizer 'smollm2' has bad parameters: max_new_tokens = 'many' is not an integer"),
    ("smollm2", {"temperatur": 0.3}, "unknown parameter 'temperatur'; allowed: perspective_template"),
])
def test_every_summarizer_family_refuses_bad_parameters_the_same_way(name, params, expected):
    with pytest.raises(SummarizerError) as checked:
        check_summarizer(name, **params)
    assert expected in str(checked.value)
    with pytest.raises(SummarizerError) as built:  # building checks the same way, before any model is touched
        get_summarizer(name, **params)
    assert str(built.value) == str(checked.value)


def test_smollm2_refuses_a_bad_parameter_before_converting_or_loading_its_model(tmp_path):
    with pytest.raises(SummarizerError, match="num_beams = -2 is out of range"):
        get_summarizer("smollm2", num_beams=-2, cache_root=str(tmp_path / "models"))
    assert not (tmp_path / "models").exists()


def test_good_parameters_still_build_the_summarizers_they_name():
    assert get_summarizer("textrank", damping=0.5).parameters() == {"k": 3, "damping": 0.5}
    assert get_summarizer("textrank-4").name == "textrank-4"
    assert get_summarizer("sexist-male").favour == "male"
    assert get_summarizer("random-2", seed=SEED_MAX).seed == SEED_MAX
    openai = get_summarizer("openai:m", max_tokens=64, concurrency=2, temperature=0, base_url="http://x/v1")
    assert (openai.max_tokens, openai.concurrency, openai.temperature) == (64, 2, 0.0)
    assert get_summarizer("hf:some/model", max_new_tokens=8, sentences=2).prompt.sentences == 2


def test_every_constructor_keyword_of_every_registered_summarizer_is_declared():
    """A keyword added to a summarizer's constructor without a declaration would be refused as unknown."""
    prompt_fields = {field.name for field in dataclasses.fields(PromptSettings)}
    for registration in _REGISTRY:
        if registration.summarizer is None:
            continue
        keywords: set[str] = set()
        for cls in registration.summarizer.__mro__:  # follow **params forwarded to the parent's constructor
            if not issubclass(cls, Summarizer) or "__init__" not in vars(cls):
                continue
            parameters = inspect.signature(cls.__init__).parameters
            keywords |= {name for name, parameter in parameters.items() if name != "self"
                         and parameter.kind not in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL)}
            if "prompt_options" in parameters:
                keywords |= prompt_fields
            if not any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters.values()):
                break
        fixed = {"model", "name"}  # set by the summarizer's name (hf:<model>) or by a subclass (smollm2)
        assert keywords - fixed <= set(registration.summarizer.parameter_spec), \
            (registration.example, keywords - fixed - set(registration.summarizer.parameter_spec))


def test_an_output_that_is_a_folder_or_in_a_folder_that_cannot_be_written_is_refused(tmp_path):
    with pytest.raises(InputError, match="is a folder"):
        check_output_path(tmp_path)
    check_output_path(tmp_path / "new" / "deeper" / "out.jsonl")  # missing folders are created by the writer
    assert not (tmp_path / "new").exists()
    read_only = read_only_folder(tmp_path)
    with pytest.raises(InputError, match="cannot write into the folder"):
        check_output_path(read_only / "out.jsonl")


def read_only_folder(tmp_path):
    """A folder this process cannot write into: a chmod 555 folder, or for root (who may write anywhere on a
    writable disk) /sys/kernel, which no process can create files in."""
    from pathlib import Path

    if os.geteuid() == 0:
        return Path("/sys/kernel")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


def config(**changes) -> AuditConfig:
    base = AuditConfig(corpus=CorpusSpec("corpus.jsonl"), summarizers=[StageSpec("lead-3")])
    for key, value in changes.items():
        setattr(base, key, value)
    return base


@pytest.mark.parametrize(("changes", "expected"), [
    ({"seed": -1}, "seed = -1 is out of range"),
    ({"seed": "abc"}, "seed = 'abc' is not an integer"),
    ({"bootstrap": 0}, "measures.bootstrap = 0 is out of range"),
    ({"measures": ["entity_inclusion", "entity_inclusoin"]}, "unknown measure 'entity_inclusoin' (did you mean"),
    ({"summarizers": [StageSpec("textrank", {"damping": 5})]}, "summarizer 'textrank' has bad parameters: damping = 5"),
    ({"summarizers": [StageSpec("lead-3"), StageSpec("lead-3")]}, "summarizer 'lead-3' is listed twice"),
    ({"perturbations": [StageSpec("gender-loc", {"samples": "abc"})]}, "perturbation 'gender-loc': samples = 'abc'"),
    ({"perturbations": [StageSpec("gender-loc", {"samples": 0})]}, "samples = 0 is out of range"),
    ({"perturbations": [StageSpec("politician", {"pairs": ["A=B=C"]})]}, "needs exactly one '='"),
    ({"perturbations": [StageSpec("gendr-loc")]}, "unknown perturbation 'gendr-loc' (did you mean 'gender-loc'?)"),
    ({"paired_identifiers": "extnded"}, "measures.paired_identifiers: 'extnded' is neither steen-markert"),
    ({"paired_identifiers": 3}, "measures.paired_identifiers: 3 is not text"),
    ({"include_degenerate": 1}, "measures.include_degenerate = 1 is not"),
    ({"lexicons": {"factive": "f.txt"}}, "unknown lexicon 'factive'"),
    ({"lexicons": {"factives": "missing/f.txt"}}, "measures.lexicons.factives: 'missing/f.txt' is not an existing"),
])
def test_validate_refuses_every_bad_value_of_a_config(changes, expected):
    with pytest.raises(ConfigError) as caught:
        config(**changes).validate()
    assert expected in str(caught.value)


def test_a_valid_config_validates_without_warnings():
    assert config(perturbations=[StageSpec("identity"), StageSpec("gender-loc", {"samples": 2})]).validate() == []


def test_measure_options_at_their_defaults_leave_the_stored_config_and_its_hash_unchanged(tmp_path):
    from bias_core.runs.config import config_hash

    plain = config()
    explicit = config(paired_identifiers="steen-markert", include_degenerate=False, lexicons={})
    assert explicit.to_dict() == plain.to_dict()
    assert not {"paired_identifiers", "include_degenerate", "lexicons"} & set(plain.to_dict())
    assert config_hash(explicit, []) == config_hash(plain, [])
    hedges = tmp_path / "hedges.txt"
    hedges.write_text("maybe\n")
    for changed in (config(paired_identifiers="extended"), config(include_degenerate=True),
                    config(lexicons={"hedges": str(hedges)})):
        assert changed.validate() == []
        assert config_hash(changed, []) != config_hash(plain, [])
        assert AuditConfig.from_stored(changed.to_dict()) == changed
        assert AuditConfig.from_dict(changed.to_file_dict()) == changed


def test_unknown_top_level_keys_are_warnings_that_name_the_known_keys(caplog):
    loaded = AuditConfig.from_dict({"corpus": "c.jsonl", "summarizers": ["lead-3"], "sed": 3}, "audit.toml")
    warnings = loaded.validate()
    assert warnings == ["audit.toml: unknown top-level key 'sed' (did you mean 'seed'?); allowed: name, seed, "
                        "corpus, perturbations, summarizers, measures, budget (ignored)"]
    assert warnings[0] in caplog.text
    assert "sed" not in loaded.to_dict()


def test_summarize_inputs_refuses_a_batch_size_below_one_instead_of_dropping_every_input():
    from bias_core.common.records import Input
    from bias_core.summarize import summarize_inputs

    with pytest.raises(ParamError, match="batch_size = -1 is out of range"):
        summarize_inputs(get_summarizer("lead-3"), [Input(id="a", original_id="a", text="One. Two.")], batch_size=-1)
