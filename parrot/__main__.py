import sys

from parrot.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m parrot"))
