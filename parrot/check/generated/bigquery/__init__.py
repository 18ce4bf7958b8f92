"""Generated from grammars/Bigquery.g4."""
