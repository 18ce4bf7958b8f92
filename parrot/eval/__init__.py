"""Evaluation: python -m parrot.eval --model M (see parrot.eval.cli)."""
