"""Curation: raw SQL corpora → verified benchmark variants (``python -m parrot.curate``).

One module per stage (standardise, anonymise, select, annotate, verify, classify, serialise) on
the stage interface of :mod:`parrot.curate.stages`; :mod:`parrot.curate.variants` says what each
variant reads and keeps.
"""
