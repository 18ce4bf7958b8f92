"""``python -m parrot.curate``."""

import sys

from parrot.curate.cli import main

sys.exit(main())
