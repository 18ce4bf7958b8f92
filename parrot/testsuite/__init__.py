"""Test suites: small generated databases per item that judge a translation beyond its fixture.

Data flow: :mod:`parrot.testsuite.store` reads and writes suite files; the generator, neighbour
queries and distillation build them; :mod:`parrot.eval` judges every translation on the item's
fixture and on each suite database (Acc_TS).
"""
