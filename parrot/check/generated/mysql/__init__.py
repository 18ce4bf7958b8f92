"""Generated from grammars/Mysql.g4."""
