"""Settings of the URL-engine tests (helpers live in url_helpers.py).

Unit tests here need no server and no network: they check what each adapter derives from a URL,
its type map, quoting, guard, error classification, value conversion and timeout mechanism.
Tests marked ``server`` run only against a real server named by ``PARROT_<DIALECT>_URL``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engines"))  # engine_fixtures
