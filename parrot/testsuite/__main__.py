"""``python -m parrot.testsuite``: see :mod:`parrot.testsuite.cli`."""

from parrot.testsuite.cli import main

raise SystemExit(main())
