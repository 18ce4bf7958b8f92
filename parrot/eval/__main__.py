import sys

from parrot.eval.cli import main

if __name__ == "__main__":
    sys.exit(main())
