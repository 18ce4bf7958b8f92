"""``python -m parrot.assess``."""

from parrot.assess.cli import main

raise SystemExit(main())
