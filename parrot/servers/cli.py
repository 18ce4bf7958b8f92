"""``python -m parrot.engines up|down|status [NAME ...]``: manage parrot's local servers.

``up`` starts the named servers (default: every managed server this machine can run), ``down``
stops them and deletes their throwaway data (saying so when a crashed run left one running, and
naming the live runs registered as using one, which it cuts off and unregisters),
``status`` lists every engine: in-process ones
with their versions, servers with version, port, data directory and uptime, engines reached by
URL only with their URL, and ``absent: why`` for each one this machine cannot run (no Java for
Spark, no MariaDB, an optional driver not installed) instead of failing.
"""

from __future__ import annotations

import argparse
import sys

from parrot import cli
from parrot.api.secrets import redact_url
from parrot.cli import standalone
from parrot.engines import ENGINES, UnknownEngineError, engine_class, url_from_env
from parrot.servers import SERVERS, ServerError, server_for
from parrot.servers.base import Server, pid_alive

ACTIONS = {  # action -> its help
    "up": "start the named servers (default: every managed server this machine can run)",
    "down": "stop the named servers and delete their throwaway data (default: all), even under "
    "the live runs using them, which it names",
    "status": "list every engine: in-process ones with their versions, servers with version, "
    "port, data directory and uptime, engines reached by URL, and why any is absent",
}


def build_parser() -> argparse.ArgumentParser:
    """``python -m parrot.engines``."""
    return configure(standalone("python -m parrot.engines"))


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``parser`` with the engines actions (also ``parrot engines``'s subparser)."""
    cli.configure(parser, engines, "Start, stop and list the database servers parrot runs locally.")
    actions = parser.add_subparsers(title="actions", dest="action", metavar="ACTION", required=True)
    for action, text in ACTIONS.items():
        sub = cli.configure(actions.add_parser(action, help=text, description=text), engines)
        sub.add_argument(
            "names",
            nargs="*",
            metavar="NAME",
            help=f"servers (default: all of {', '.join(sorted(SERVERS))})",
        )
    return parser


def _uptime(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def _engine_status(name: str) -> str | None:
    """The status line of an engine parrot does not manage as a server: in-process (``absent:
    why`` when it cannot run here) or reached by URL only; None for managed servers."""
    try:
        cls = engine_class(name)
    except ImportError as exc:  # an optional driver missing from this install
        return f"{name:<18} absent: {exc}"
    if cls.is_server():
        if cls.dialect in SERVERS:
            return None
        url = url_from_env(cls.dialect)
        return f"{name:<18} by URL      " + (
            redact_url(url)
            if url
            else f"none set (--engine {cls.dialect}=URL or PARROT_{cls.dialect.upper()}_URL)"
        )
    why = cls.available()
    if why is None:
        try:
            with cls() as engine:
                return f"{name:<18} in-process  {engine.label}"
        except (UnknownEngineError, ImportError, OSError) as exc:
            why = str(exc)
    return f"{name:<18} absent: {why}"


def _orphan_note(owner: int) -> str:
    if not owner:
        return ""
    if pid_alive(owner):
        return f"  (for run {owner})"
    return f"  (left running by run {owner}, which crashed: `down` stops it)"


def _down(server: Server) -> None:
    """Stop ``server`` even under the live runs registered as using it, and say which."""
    orphaned = server.stop_orphan()
    stopped, users = (True, []) if orphaned is not None else server.cut_off()
    print(
        f"{server.dialect}: "
        + (
            f"stopped (left running by run {orphaned}, which crashed)"
            if orphaned
            else "stopped"
            if stopped
            else "was not running"
        )
        + (
            f"; cut off the live runs using it: {', '.join(map(str, users))}"
            if users and stopped
            else ""
        )
    )


def main(argv: list[str] | None = None) -> int:
    return cli.dispatch(build_parser(), argv)


def engines(args: argparse.Namespace) -> int:
    """Carry out ``args.action`` on the servers ``args.names``."""
    names = args.names or sorted(SERVERS)
    try:
        servers = [server_for(n) for n in names]
    except ServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    failed = False
    if args.action == "status":
        if not args.names:
            for name in sorted(ENGINES):
                line = _engine_status(name)
                if line is not None:
                    print(line)
        for server in servers:
            state = server.state()
            if state is None:
                hint = server.available()
                print(
                    f"{server.dialect:<18} absent: {hint}" if hint else f"{server.dialect:<18} down"
                )
            else:
                print(
                    f"{server.dialect:<18} up          {state.label}  at {state.address}  "
                    f"pid {state.pid}  data {state.data_dir}  uptime {_uptime(state.uptime)}"
                    + _orphan_note(state.owner)
                )
        return 0
    for server in servers:
        try:
            if args.action == "up":
                state = server.start()
                print(
                    f"{server.dialect}: up — {state.label} at {state.address} "
                    f"(data {state.data_dir})"
                )
            else:
                _down(server)
        except ServerError as exc:
            print(f"{server.dialect}: error: {exc}", file=sys.stderr)
            failed = True
    return 1 if failed else 0
