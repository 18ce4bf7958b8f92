"""Typed records of a run: moved to :mod:`parrot.api.records` (the ground floor, so that report and
scale read them without importing eval); re-exported here for the many callers.
"""

from parrot.api.records import (
    LEVELS,
    CellRecord,
    ExecutionRecord,
    LevelRecord,
    Outcome,
    ProveRecord,
    SuiteDatabaseRecord,
    SuiteRecord,
    Summary,
    SyntaxRecord,
    VerdictRecord,
    WitnessLine,
    WitnessRecord,
    level_name,
    verdict_level,
)

__all__ = [
    "LEVELS",
    "CellRecord",
    "ExecutionRecord",
    "LevelRecord",
    "Outcome",
    "ProveRecord",
    "SuiteDatabaseRecord",
    "SuiteRecord",
    "Summary",
    "SyntaxRecord",
    "VerdictRecord",
    "WitnessLine",
    "WitnessRecord",
    "level_name",
    "verdict_level",
]
