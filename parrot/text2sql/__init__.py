"""Cross-dialect text-to-SQL on the translation harness (PolySQL's dual execution).

An item with a ``question`` asks for SQL in ``target_dialect`` answering it; its gold is
``source_sql`` in ``source_dialect`` (SQLite for Spider). The judge runs the gold on the source
engine and the answer on the target engine over the same data — exactly as for a translation —
so every translator, comparison mode, report, cache and resume works unchanged.
"""
