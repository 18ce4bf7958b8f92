"""``python -m parrot.engines up|down|status [NAME ...]``: manage parrot's local servers.

``up`` starts the named servers (default: every managed server this machine can run), ``down``
stops them and deletes their throwaway data, ``status`` lists every engine: embedded ones with
their versions, servers with version, port, data directory and uptime.
"""

from __future__ import annotations

import argparse
import sys

from parrot.cli import DefaultsHelpFormatter
from parrot.engines import ENGINES, engine_class
from parrot.servers import SERVERS, ServerError, server_for


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m parrot.engines", formatter_class=DefaultsHelpFormatter,
        description="Start, stop and list the database servers parrot runs locally.")
    parser.add_argument("action", choices=("up", "down", "status"))
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"servers (default: all of {', '.join(sorted(SERVERS))})")
    return parser


def _uptime(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
                cls = engine_class(name)
                if cls.url_schemes is None:
                    with cls() as engine:
                        print(f"{name:<12} in-process  {engine.label}")
        for server in servers:
            state = server.state()
            if state is None:
                hint = server.available()
                print(f"{server.dialect:<12} down        "
                      f"{'(cannot run here: ' + hint + ')' if hint else ''}".rstrip())
            else:
                print(f"{server.dialect:<12} up          {state.label}  port {state.port}  "
                      f"pid {state.pid}  data {state.data_dir}  uptime {_uptime(state.uptime)}")
        return 0
    for server in servers:
        try:
            if args.action == "up":
                state = server.start()
                print(f"{server.dialect}: up — {state.label} on 127.0.0.1:{state.port} "
                      f"(data {state.data_dir})")
            else:
                stopped = server.stop()
                print(f"{server.dialect}: {'stopped' if stopped else 'was not running'}")
        except ServerError as exc:
            print(f"{server.dialect}: error: {exc}", file=sys.stderr)
            failed = True
    return 1 if failed else 0
