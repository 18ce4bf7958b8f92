"""Secrets stay out: of the environment parrot's engine processes inherit, and of any text
parrot stores.

API keys and passwords never enter an engine process parrot starts (the Spark JVM and its Python
workers, database servers and their tools): every variable whose name looks like a secret
(``*_API_KEY``, ``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD``, ``*CREDENTIALS``) and every
``PARROT_*_URL`` (server URLs may carry a password) is left out. :func:`scrub_secrets` takes the
values of those variables (and any other configured secret) out of a text, e.g. a model's answer
before it reaches results.jsonl or the response cache.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Iterator, Mapping

SECRET_NAME = re.compile(r"(_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|^PARROT_\w+_URL$",
                         re.IGNORECASE)
MIN_SECRET = 8  # shorter values ("1", "true", a port) are not secrets worth a blind replace
SCRUBBED = "***"


def clean_environ(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's environment) without secret-looking variables."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if not SECRET_NAME.search(k)}


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """The values of secret-looking environment variables and of ``extra`` (configured secrets:
    an API key given by flag), longest first, ignoring values shorter than MIN_SECRET."""
    values = {v for k, v in os.environ.items() if SECRET_NAME.search(k)} | {
        v for v in extra if v}
    return sorted((v for v in values if len(v) >= MIN_SECRET), key=len, reverse=True)


def scrub_secrets(text: str, extra: Iterable[str | None] = ()) -> str:
    """``text`` with every secret value (:func:`secret_values`) replaced by ``***``."""
    for value in secret_values(extra):
        text = text.replace(value, SCRUBBED)
    return text


@contextlib.contextmanager
def scrubbed_environ() -> Iterator[None]:
    """Take secret-looking variables out of ``os.environ`` while a child process starts from it
    (pyspark launches the JVM from ``os.environ`` itself); put them back afterwards."""
    removed = {k: v for k, v in os.environ.items() if SECRET_NAME.search(k)}
    for name in removed:
        del os.environ[name]
    try:
        yield
    finally:
        os.environ.update(removed)
