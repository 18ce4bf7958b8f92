"""Generated from grammars/Oracle.g4."""
