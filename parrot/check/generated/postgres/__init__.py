"""Generated from grammars/Postgres.g4."""
