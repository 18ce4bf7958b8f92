"""Generated from grammars/Trino.g4."""
