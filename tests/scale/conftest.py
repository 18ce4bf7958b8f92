"""A real Ray cluster on this machine (:mod:`parrot.scale.local`): a head and two worker nodes,
torn down at the end of the session."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from parrot.scale.local import LocalCluster, start_head


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[LocalCluster]:
    pytest.importorskip("ray", reason="ray not installed: pip install -e '.[ray]'")
    temp = Path(tempfile.mkdtemp(prefix="parrot-ray-"))  # short: Ray's socket paths are long
    cluster = None
    try:
        cluster = start_head(temp)
        for _ in range(2):
            cluster.add_worker()
        yield cluster
    except RuntimeError as exc:
        pytest.fail(str(exc))
    finally:
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(temp, ignore_errors=True)
