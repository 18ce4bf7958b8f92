"""Generated from grammars/Clickhouse.g4."""
