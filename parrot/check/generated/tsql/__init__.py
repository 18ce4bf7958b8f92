"""Generated from grammars/Tsql.g4."""
