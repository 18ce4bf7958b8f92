"""The one redaction module: what parrot writes (manifests, results, reports, caches, messages)
and what its child processes inherit never hold a secret.

* :func:`redact_url` hides URL passwords and secret query parameters (``password=``,
  ``token=``, ...); :func:`redact_argv` does that to every argument of a command line and
  hides the value of secret flags (``--api-key X``, ``--password=X``).
* :func:`secret_values` lists every secret a run can see: the values of secret-looking
  environment variables (``*_KEY``, ``*TOKEN``, ``*SECRET``, ``*PASSWORD``, ``*_PWD``,
  ``*CREDENTIALS``, ``*_PAT``, ``MYSQL_PWD``), the passwords inside URL-valued variables
  (``DATABASE_URL``, ``PARROT_*_URL``), and any given ones (an ``--engine`` URL's password,
  an API key given by flag).
* :func:`scrub` replaces each of them in a text — as is, URL-quoted, in base64 (standard and
  URL-safe, at every alignment inside a longer base64 text) and in hex (either case) — and
  :func:`scrub_tree` does that to every string of a JSON-like value: a result value that SQL
  rebuilt from pieces (``'sk-ca' || '...'``) is caught once it is whole.
* :data:`PASSWORD_HASH`: password hashes a server shows (``SHOW GRANTS``) are hidden too.
* :func:`allowed_environ` builds a child process's environment from an allow-list
  (:data:`ENV_ALLOWED`, :data:`ENV_ALLOWED_PREFIXES`): a variable nobody listed never passes.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import os
import re
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, quote, unquote, urlsplit

SCRUBBED = "***"
MIN_SECRET = 8  # shorter values ("1", "true", a port) are not secrets worth a blind replace

SECRET_PARAMS = frozenset(
    {
        "password",
        "pwd",
        "passwd",
        "token",
        "access_token",
        "secret",
        "client_secret",
        "passcode",
        "private_key_file_pwd",
        "private_key_passphrase",
        "private_key_password",
        "wallet_password",
        "oauth_token",
        "oauth_client_secret",
        "api_key",
        "apikey",
        "key",
    }
)
SECRET_NAME = re.compile(
    r"(_KEY|TOKEN|SECRET|PASSWORD|PASSWD|_PWD|CREDENTIALS?|_PAT)$|"
    r"^MYSQL_PWD$|^PGPASS",
    re.IGNORECASE,
)
# password hashes a server shows its users (SHOW GRANTS, pg_authid): mysql_native_password,
# PostgreSQL SCRAM-SHA-256 and md5
PASSWORD_HASH = re.compile(r"\*[0-9A-F]{40}\b|SCRAM-SHA-256\$[\w$+/=:.-]+|\bmd5[0-9a-f]{32}\b")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
SECRET_FLAG = re.compile(r"^--?[\w-]*(api[-_]?key|password|passwd|token|secret)$", re.IGNORECASE)
_USERINFO = re.compile(r"(//[^/@:?#\s]*):[^/@?#\s]*@")
_SECRET_QUERY = re.compile(
    r"([?&;](?:" + "|".join(sorted(SECRET_PARAMS)) + r")=)[^&;#\s'\"]*", re.IGNORECASE
)

# a child process's environment: only these variables (and those starting with a prefix below)
# the Spark engine's settings (parrot.engines.spark reads them in its worker, which sees only
# the variables allowed here)
SPARK_MEMORY_VARIABLE = "PARROT_SPARK_MEMORY"
SPARK_JAVA_OPTIONS_VARIABLE = "PARROT_SPARK_JAVA_OPTIONS"
ENV_ALLOWED = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TERM",
        "PWD",
        "HOSTNAME",
        "LD_LIBRARY_PATH",
        "PYTHONPATH",
        "PYTHONHASHSEED",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONDONTWRITEBYTECODE",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "JAVA_HOME",
        "JAVA_TOOL_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "HADOOP_HOME",
        "HADOOP_CONF_DIR",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "OMP_NUM_THREADS",
        "PARROT_CACHE",
        "PARROT_CORPORA",
        "PARROT_NO_ISOLATION",
        SPARK_MEMORY_VARIABLE,
        SPARK_JAVA_OPTIONS_VARIABLE,
    }
)
ENV_ALLOWED_PREFIXES = ("LC_", "SPARK_", "PYSPARK_", "XDG_")


def redact_url(text: str) -> str:
    """``text`` with URL passwords and secret query parameters replaced by ``***``."""
    return _SECRET_QUERY.sub(r"\1" + SCRUBBED, _USERINFO.sub(r"\1:" + SCRUBBED + "@", text))


def url_secrets(text: str) -> list[str]:
    """The passwords and secret query parameter values of the URLs in ``text``."""
    out: list[str] = []
    for url in _URL.findall(text):
        parts = urlsplit(url)
        with contextlib.suppress(ValueError):
            if parts.password:
                out.append(unquote(parts.password))
        out += [v for k, v in parse_qsl(parts.query) if k.lower() in SECRET_PARAMS and v]
    return out


def redact_argv(argv: Iterable[str]) -> list[str]:
    """A command line without secrets: URLs redacted, the value of a secret flag hidden."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        flag, eq, _value = arg.partition("=")
        if hide_next:
            out.append(SCRUBBED)
        elif eq and SECRET_FLAG.match(flag):
            out.append(f"{flag}={SCRUBBED}")
        else:
            out.append(redact_url(arg))
        hide_next = not hide_next and not eq and bool(SECRET_FLAG.match(arg))
    return out


def argv_secrets(argv: Iterable[str]) -> list[str]:
    """The values :func:`redact_argv` hides: secret flags' values and URL passwords."""
    out: list[str] = []
    args = list(argv)
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if eq and SECRET_FLAG.match(flag):
            out.append(value)
        elif not eq and SECRET_FLAG.match(arg) and i + 1 < len(args):
            out.append(args[i + 1])
        out += url_secrets(arg)
    return out


def secret_values(
    extra: Iterable[str | None] = (), env: Mapping[str, str] | None = None
) -> list[str]:
    """Every secret of ``env`` (default: this process's environment) and ``extra``: values of
    secret-looking variables and the passwords in URL-valued ones, longest first, ignoring
    values shorter than MIN_SECRET."""
    source = os.environ if env is None else env
    found: set[str] = {v for v in extra if v}
    for name, value in source.items():
        found.update(url_secrets(value))
        if SECRET_NAME.search(name):
            found.add(value)
    return sorted((v for v in found if len(v) >= MIN_SECRET), key=len, reverse=True)


@functools.lru_cache(maxsize=256)
def encoded_forms(secret: str) -> tuple[str, ...]:
    """``secret`` as it may appear in a text: plain, URL-quoted, base64 (standard and URL-safe;
    the part fixed by the secret alone, at each of the three alignments) and hex."""
    raw = secret.encode()
    forms = {secret, quote(secret, safe=""), raw.hex(), raw.hex().upper()}
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(b"\0" * shift + raw).decode()
            start = -(-8 * shift // 6)  # the first character made of the secret's bits only
            stop = 8 * (shift + len(raw)) // 6
            forms.add(text[start:stop])
    with_padding = base64.b64encode(raw).decode()
    forms.add(with_padding)
    return tuple(sorted((f for f in forms if len(f) >= MIN_SECRET), key=len, reverse=True))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every form (:func:`encoded_forms`) of each of ``secrets`` replaced by
    ``***``, URL passwords redacted and password hashes (:data:`PASSWORD_HASH`) hidden."""
    for secret in secrets:
        for form in encoded_forms(secret):
            if form in text:
                text = text.replace(form, SCRUBBED)
    return PASSWORD_HASH.sub(SCRUBBED, redact_url(text))


def scrub_tree(value: object, secrets: Iterable[str]) -> object:
    """``value`` (JSON-like: dicts, lists, strings, numbers) with every string scrubbed."""
    found = tuple(secrets)
    if isinstance(value, str):
        return scrub(value, found)
    if isinstance(value, dict):
        return {k: scrub_tree(v, found) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_tree(v, found) for v in value]
    return value


def allowed_environ(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's environment) reduced to the allow-list."""
    source = os.environ if env is None else env
    return {
        k: v for k, v in source.items() if k in ENV_ALLOWED or k.startswith(ENV_ALLOWED_PREFIXES)
    }


__all__ = [
    "ENV_ALLOWED",
    "ENV_ALLOWED_PREFIXES",
    "MIN_SECRET",
    "PASSWORD_HASH",
    "SCRUBBED",
    "SECRET_NAME",
    "SECRET_PARAMS",
    "allowed_environ",
    "argv_secrets",
    "encoded_forms",
    "redact_argv",
    "redact_url",
    "scrub",
    "scrub_tree",
    "secret_values",
    "url_secrets",
]
