"""Results I/O of a run directory: moved to :mod:`parrot.api.results` (the ground floor, so
that report and scale read them without importing eval); re-exported here for the many callers.
"""

from parrot.api.results import (
    DAMAGED,
    FSYNC_INTERVAL,
    MANIFEST,
    RESULTS,
    SUMMARY,
    WITNESSES,
    DamagedResultsError,
    ResultsLog,
    RunDirError,
    RunWriteError,
    read_json,
    read_results,
    read_witnesses,
    rejected,
    scan_results,
    witness_summary,
    write_error,
    write_json,
)

__all__ = [
    "DAMAGED",
    "FSYNC_INTERVAL",
    "MANIFEST",
    "RESULTS",
    "SUMMARY",
    "WITNESSES",
    "DamagedResultsError",
    "ResultsLog",
    "RunDirError",
    "RunWriteError",
    "read_json",
    "read_results",
    "read_witnesses",
    "rejected",
    "scan_results",
    "witness_summary",
    "write_error",
    "write_json",
]
