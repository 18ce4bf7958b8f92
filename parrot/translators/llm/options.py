"""Settings of the LLM translators and their ``python -m parrot.eval`` flags (no litellm here)."""

from __future__ import annotations

import argparse
from collections.abc import Collection
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from parrot.cli import Renamed, add_api_base, seconds
from parrot.servers.base import cache_dir

DEFAULT_PROMPT = "parrot-v1"
FEEDBACK_MODES = ("errors", "results")


@dataclass(frozen=True)
class LLMOptions:
    """How to call the model and what to put in its prompt."""

    api_base: str | None = None  # an OpenAI-compatible server (vLLM, llama.cpp, a proxy, ...)
    concurrency: int = 8  # requests in flight
    temperature: float = 0.0
    max_tokens: int = 1024
    request_timeout: float = 120.0  # seconds per request
    retries: int = 4  # extra attempts after a 429, a 5xx, a timeout or a broken connection
    backoff: float = 1.0  # the first retry waits up to this many seconds; doubles each time
    prompt: str = DEFAULT_PROMPT  # a template in parrot/translators/llm/templates/
    hints: bool = True  # verified facts about the target dialect
    shots: int = 1  # worked examples
    schema: bool = True  # the fixture's tables as DDL
    cache: bool = True
    cache_path: Path | None = None  # None: <parrot cache>/llm/responses.sqlite
    reflection: int = 0  # rounds in which the model sees the target engine's error
    feedback: str = "errors"  # "results": also result mismatches (curation, never evaluation)
    price: tuple[float, float] | None = None  # USD per million tokens in/out (else litellm's)

    def resolved_cache_path(self) -> Path | None:
        if not self.cache:
            return None
        if self.cache_path is not None:
            return self.cache_path

        return cache_dir() / "llm" / "responses.sqlite"


def feedback_label(mode: str) -> str:
    """How a feedback mode is recorded in manifests: curation mode is labelled as such."""
    return "errors" if mode == "errors" else "results (curation: sees the expected result)"


class _DeprecatedSchema(Renamed, argparse.BooleanOptionalAction):
    """``--schema/--no-schema``, the old spelling of ``--prompt-schema`` (``parrot assess``
    needed ``--schema FILE``): still accepted, with a warning."""

    old = ("--schema", "--no-schema")

    def new_spelling(self, option_string: str) -> str:
        return "--no-prompt-schema" if option_string.startswith("--no-") else "--prompt-schema"


def _dest(flag: str) -> str:
    """The destination argparse gives a ``--long-flag``: ``long_flag``."""
    return flag.removeprefix("--").replace("-", "_")


class _Chosen:
    """A flag group that adds only the flags asked for (``only``: destinations; None: all)."""

    def __init__(self, group: Any, only: Collection[str] | None) -> None:
        self.group, self.only = group, only

    def add_argument(self, *flags: str, **kwargs: Any) -> None:
        if self.only is None or _dest(flags[0]) in self.only:
            self.group.add_argument(*flags, **kwargs)


def add_arguments(
    parser: argparse.ArgumentParser,
    only: Collection[str] | None = None,
    description: str | None = None,
    old_schema: bool = True,
) -> None:
    """The LLM flags of ``python -m parrot.eval`` (``only``: just the flags with these
    destinations, e.g. for a tool that asks a model but translates nothing; ``old_schema``:
    also the deprecated ``--schema/--no-schema``, hidden, outside the group so that
    ``--model-args schema=…`` expands to ``--prompt-schema``)."""
    group = parser.add_argument_group(
        "LLM translators",
        description
        or (
            "for --model PROVIDER/MODEL (any litellm model, e.g. openai/gpt-4o, anthropic/"
            "claude-..., ollama/..., hosted_vllm/...), local and ensemble:...; API keys come "
            "from the provider's usual environment variables and are never recorded"
        ),
    )
    chosen, d = _Chosen(group, only), LLMOptions()
    _request_flags(chosen, d)
    _prompt_flags(chosen, d)
    if old_schema and (only is None or "schema" in only):
        parser.add_argument(
            "--schema",
            dest="schema",
            action=_DeprecatedSchema,
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
        )
    _cache_and_reflection_flags(chosen, d)


# The numeric flags: flag, metavar, type and help, which may show the default as ``{d}`` (as
# a duration: ``{s}``); the default is the LLMOptions field the flag sets.
# A literal data table, one flag per row:
# fmt: off
_REQUEST_NUMBERS = (
    ("--concurrency", "N", int, "requests in flight (default: {d})"),
    ("--temperature", "T", float, "sampling temperature (default: {d:g})"),
    ("--max-tokens", "N", int, "answer length cap in tokens (default: {d})"),
    ("--request-timeout", "SECONDS", float, "seconds per request (default: {s})"),
    ("--retries", "N", int, "retries after 429/5xx/timeouts, exponential backoff with jitter "
                            "(default: {d})"),
)
_SHOTS = (("--shots", "N", int, "worked examples in the prompt (default: {d})"),)
_REFLECTION = (
    ("--reflection", "K", int, "up to K rounds in which the model sees the target engine's "
                               "error for its previous answer and tries again (default: {d})"),
)
# fmt: on


def _numbers(g: _Chosen, d: LLMOptions, rows: tuple[tuple[str, str, type, str], ...]) -> None:
    for flag, metavar, kind, text in rows:
        default = getattr(d, _dest(flag))
        g.add_argument(
            flag,
            metavar=metavar,
            type=kind,
            default=default,
            help=text.format(d=default, s=seconds(default)),
        )


def _request_flags(g: _Chosen, d: LLMOptions) -> None:
    """Where the requests go and how they are sent."""
    add_api_base(g)
    _numbers(g, d, _REQUEST_NUMBERS)


def _prompt_flags(g: _Chosen, d: LLMOptions) -> None:
    """What the prompt holds."""
    g.add_argument(
        "--prompt",
        metavar="NAME",
        default=d.prompt,
        help=f"prompt template NAME-vVERSION (default: {d.prompt})",
    )
    g.add_argument(
        "--hints",
        action=argparse.BooleanOptionalAction,
        default=d.hints,
        help="include verified facts about the target dialect (default: on)",
    )
    _numbers(g, d, _SHOTS)
    g.add_argument(
        "--prompt-schema",
        dest="schema",
        action=argparse.BooleanOptionalAction,
        default=d.schema,
        help="include the fixture's tables as DDL in the prompt (default: on; formerly --schema)",
    )


def _cache_and_reflection_flags(g: _Chosen, d: LLMOptions) -> None:
    """The response cache, the rounds of reflection and the price."""
    g.add_argument(
        "--cache",
        type=Path,
        default=None,
        metavar="PATH",
        help="SQLite response cache (default: $PARROT_CACHE/llm/responses.sqlite, "
        "~/.cache/parrot/llm/... without it)",
    )
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    _numbers(g, d, _REFLECTION)
    g.add_argument(
        "--feedback",
        choices=FEEDBACK_MODES,
        default=d.feedback,
        help="what reflection and ensembles see: the target engine's errors "
        "(evaluation), or also result mismatches with the expected result "
        "(results: curation only, labelled in the manifest)",
    )
    g.add_argument(
        "--price",
        default=None,
        metavar="IN,OUT",
        help="USD per million input,output tokens (default: litellm's price list; "
        "unknown models have no cost)",
    )


def from_args(args: argparse.Namespace) -> LLMOptions:
    """LLMOptions from parsed flags (defaults for flags the parser lacks); ValueError on
    nonsense values."""
    d = LLMOptions()
    args = argparse.Namespace(
        **{
            **{k: getattr(d, k) for k in vars(d)},
            "no_cache": not d.cache,
            "cache": d.cache_path,
            "price": None,
            **vars(args),
        }
    )
    if args.concurrency < 1 or args.max_tokens < 1 or args.request_timeout <= 0:
        raise ValueError("--concurrency, --max-tokens and --request-timeout must be positive")
    if args.retries < 0 or args.shots < 0 or args.reflection < 0:
        raise ValueError("--retries, --shots and --reflection must not be negative")
    price = None
    if args.price is not None:
        try:
            low, high = (float(p) for p in args.price.split(","))
        except ValueError:
            raise ValueError(f"bad --price {args.price!r}: expected IN,OUT, e.g. 2.5,10") from None
        price = (low, high)
    given = {f.name: getattr(args, f.name) for f in fields(LLMOptions)}
    # --cache is the path, --no-cache the switch
    given.update(cache=not args.no_cache, cache_path=args.cache, price=price)
    return LLMOptions(**given)
