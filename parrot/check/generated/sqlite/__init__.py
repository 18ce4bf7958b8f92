"""Generated from grammars/Sqlite.g4."""
