"""parrot: an engine-backed benchmark toolkit for cross-system SQL translation."""

__version__ = "0.1.0"
