"""Generated from grammars/Duckdb.g4."""
