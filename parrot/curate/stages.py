"""The stage interface, records, funnel and executor: moved to :mod:`parrot.scale.stages` (where
work runs, below curate and eval); re-exported here for curation's many stages.
"""

from parrot.scale.stages import (
    DEFAULT_CHUNK,
    ENGINE_CHUNK,
    Batch,
    Candidate,
    Drop,
    Executor,
    LocalExecutor,
    Progress,
    Record,
    Stage,
    StageCount,
    chunked,
    run_chunk,
    run_pipeline,
    run_stage,
    statement_id,
)

__all__ = [
    "DEFAULT_CHUNK",
    "ENGINE_CHUNK",
    "Batch",
    "Candidate",
    "Drop",
    "Executor",
    "LocalExecutor",
    "Progress",
    "Record",
    "Stage",
    "StageCount",
    "chunked",
    "run_chunk",
    "run_pipeline",
    "run_stage",
    "statement_id",
]
