"""Shared fixtures: the repository root and the official sample data, when a folder of it is given.

The official samples (MANGO mazes, GRASP grids, Boxoban level files) are not part of the repository.
Tests of the official formats use small fixtures the tests write themselves; tests against the real
samples run in addition when ``PLAYBENCH_TEST_DATA`` names their folder (``.ci/run`` sets it), and are
otherwise reported as skipped with that reason, never as passed.
"""

import os
import signal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# A suite started in the background of a non-interactive shell (``make test &``) inherits SIGINT ignored,
# and so would every playbench process the tests start: their Ctrl-C tests would see the signal ignored.
# A handler (unlike SIG_IGN) is reset to the default on exec, so the children get Ctrl-C back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
DATA_VARIABLE = "PLAYBENCH_TEST_DATA"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The official sample data folder named by $PLAYBENCH_TEST_DATA (skipped, with the reason, when unset)."""
    given = os.environ.get(DATA_VARIABLE)
    if not given:
        pytest.skip(f"official sample data not given: set {DATA_VARIABLE} to its folder (.ci/run does)")
    folder = Path(given)
    assert folder.is_dir(), f"{DATA_VARIABLE}={given} is not a folder"
    return folder
