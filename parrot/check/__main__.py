"""Entry point: ``python -m parrot.check``."""

import sys

from parrot.check.cli import main

sys.exit(main())
