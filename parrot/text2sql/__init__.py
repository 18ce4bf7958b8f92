"""Cross-dialect text-to-SQL on the translation harness (PolySQL's dual execution).

An item with a ``question`` asks for SQL in ``target_dialect`` answering it; its gold is
``source_sql`` in ``source_dialect`` (SQLite for Spider). The judge runs the gold on the source
engine and the answer on the target engine over the same data — exactly as for a translation —
so every translator, comparison mode, report, cache and resume works unchanged.

Commands (``python -m parrot.text2sql``): ``build`` (:mod:`~parrot.text2sql.build`, datasets from
question files), ``align`` (:mod:`~parrot.text2sql.align`, UniQL-style verified golds per
dialect) and ``taxonomy`` (:mod:`~parrot.text2sql.taxonomy`, failure labels of a run, with an
optional LLM judge).
"""
