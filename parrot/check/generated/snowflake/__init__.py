"""Generated from grammars/Snowflake.g4."""
