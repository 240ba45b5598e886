"""One real two-node Ray cluster (head + worker, ``ray start`` on loopback, 1 CPU each) for this folder.

Ray comes with ``.[all]`` (the ``ray`` extra): without it these tests fail, they are not skipped.
"""

import pytest
from raycluster import LocalRayCluster


@pytest.fixture(scope="session")
def ray_cluster():
    with LocalRayCluster(nodes=2, cpus=1) as cluster:
        yield cluster
