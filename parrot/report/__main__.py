import sys

from parrot.report.cli import main

if __name__ == "__main__":
    sys.exit(main())
