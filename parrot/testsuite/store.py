"""The suite store: moved to :mod:`parrot.eval.suites` (the judge reads suites, and eval is below
testsuite); re-exported here for the builder's many callers.
"""

from parrot.eval.suites import (
    CORPUS_DIR,
    SUITE_VERSION,
    SUITES_DIR,
    Suite,
    SuiteDatabase,
    from_corpus,
    load_suite,
    suite_from_json,
    suite_key,
    suite_path,
    suite_text,
    suite_to_json,
    write_suite,
)

__all__ = [
    "CORPUS_DIR",
    "SUITES_DIR",
    "SUITE_VERSION",
    "Suite",
    "SuiteDatabase",
    "from_corpus",
    "load_suite",
    "suite_from_json",
    "suite_key",
    "suite_path",
    "suite_text",
    "suite_to_json",
    "write_suite",
]
