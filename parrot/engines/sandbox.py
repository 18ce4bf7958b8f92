"""Secrets stay out: of the environment parrot's engine processes inherit, and of any text
parrot stores.

An engine process parrot starts (an isolated worker, the Spark JVM and its Python workers,
database servers and their tools) gets an environment built from an allow-list
(:func:`parrot.api.secrets.allowed_environ`: ``PATH``, ``HOME``, locale, Java/Spark settings,
...): API keys, passwords, ``MYSQL_PWD``, ``DATABASE_URL``, ``GITHUB_PAT`` or any variable
nobody listed never pass. :func:`scrub_secrets` takes every secret this process can see
(:func:`parrot.api.secrets.secret_values`) out of a text, in plain, URL-quoted, base64 and hex
form, e.g. a model's answer before it reaches results.jsonl or the response cache.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator

from parrot.api.secrets import allowed_environ, scrub, secret_values


def scrub_secrets(text: str, extra: Iterable[str | None] = ()) -> str:
    """``text`` without any secret of this process's environment or of ``extra``."""
    return scrub(text, secret_values(extra))


@contextlib.contextmanager
def scrubbed_environ() -> Iterator[None]:
    """Take every variable off the allow-list out of ``os.environ`` while a child process
    starts from it (pyspark launches the JVM from ``os.environ`` itself); put them back
    afterwards."""
    keep = allowed_environ()
    removed = {k: v for k, v in os.environ.items() if k not in keep}
    for name in removed:
        del os.environ[name]
    try:
        yield
    finally:
        os.environ.update(removed)
