"""Generated from grammars/Spark.g4."""
