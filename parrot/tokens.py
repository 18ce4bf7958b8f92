"""Token counts of SQL text with tiktoken, offline.

tiktoken downloads its BPE files on first use; these machines (and many users' CI) have no route to
that host. litellm, a parrot dependency, ships the same files, so tiktoken is pointed at them
without importing litellm (whose import is slow).
"""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

ENCODING = "cl100k_base"  # what PARROT's length buckets were measured with (GPT-4 tokenizer)


def _bundled_bpe_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


@lru_cache(maxsize=1)
def _encoder() -> Any:
    if "TIKTOKEN_CACHE_DIR" not in os.environ and "DATA_GYM_CACHE_DIR" not in os.environ:
        folder = _bundled_bpe_dir()
        if folder is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    import tiktoken

    try:
        return tiktoken.get_encoding(ENCODING)
    except Exception as exc:  # network fetch failed and no bundled file
        raise RuntimeError(
            f"tiktoken could not load {ENCODING!r} offline ({exc}); install litellm (it ships the "
            "encoding) or set TIKTOKEN_CACHE_DIR to a folder holding it"
        ) from exc


def count_tokens(text: str) -> int:
    """Number of ``cl100k_base`` tokens in ``text``."""
    return len(_encoder().encode(text, disallowed_special=()))
