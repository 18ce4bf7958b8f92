"""What parrot's engine processes may inherit: an environment without secrets.

API keys and passwords never enter an engine process parrot starts (the Spark JVM and its Python
workers, database servers and their tools): every variable whose name looks like a secret
(``*_API_KEY``, ``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD``, ``*CREDENTIALS``) and every
``PARROT_*_URL`` (server URLs may carry a password) is left out.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping

SECRET_NAME = re.compile(r"(_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|^PARROT_\w+_URL$",
                         re.IGNORECASE)


def clean_environ(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's environment) without secret-looking variables."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if not SECRET_NAME.search(k)}


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
