"""Shared fixtures: paths to the repository and to the official sample data beside it."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The official sample data (../shared/data). Missing data is a failure, never a skip."""
    assert SHARED_DATA.is_dir(), f"official sample data not found at {SHARED_DATA}"
    return SHARED_DATA
