"""BALROG's demonstration records (``.npz``): read as BALROG's loader walks them, never running their code."""

import os
from pathlib import Path

import numpy as np
import pytest

from playbench.agents.few_shot import load_demos
from playbench.agents.registry import get_agent
from playbench.agents.strategies import preflight
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.balrog.records import read_record, record_files, record_seed


def _save(path: Path, observations: list[str], actions: list[str], dones: list[bool], **extra) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, action=np.array(actions), reward=np.zeros(len(actions)),
                        text=np.array([{"long_term_context": o, "short_term_context": ""} for o in observations]),
                        terminated=np.array(dones), truncated=np.zeros(len(actions), dtype=bool), **extra)
    return path


def test_walk_stops_at_the_first_done(tmp_path: Path) -> None:
    path = _save(tmp_path / "20241201T225823-seed13-rew1.00-len2.npz", ["o0", "o1", "o2", "o3"],
                 ["", "a1", "a2", "a3"], [False, False, True, False])
    assert read_record(path) == (13, [("o0", "a1"), ("o1", "a2"), ("o2", "")])
    assert record_seed(Path("x-seed7-rew0.00-len1.npz")) == 7


def test_natural_order_as_balrog_sorts(tmp_path: Path) -> None:
    for n in (10, 2, 1):
        _save(tmp_path / "babyai" / "T" / "sub" / f"r-seed{n}-rew0.00-len1.npz", ["o", "p"], ["", "a"], [False, True])
    assert [record_seed(p) for p in record_files(tmp_path, "babyai", "T")] == [1, 2, 10]


class _Payload:
    """Pickles as a call to os.system: what a hostile record could hold."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_record_holding_code_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "evil-seed1-rew0.00-len1.npz"
    text = np.empty(2, dtype=object)
    text[0], text[1] = {"long_term_context": "o"}, _Payload(marker)
    np.savez(path, action=np.array(["", "a"]), text=text, terminated=np.array([False, True]),
             truncated=np.array([False, False]))
    with pytest.raises(PlaybenchError, match="other than text and arrays"):
        read_record(path)
    assert not marker.exists()


def test_not_a_record(tmp_path: Path) -> None:
    bad = tmp_path / "x.npz"
    np.savez(bad, action=np.array(["a"]))
    with pytest.raises(PlaybenchError, match="no 'terminated' array"):
        read_record(bad)
    bad.write_bytes(b"not a zip")
    with pytest.raises(PlaybenchError, match="not a BALROG demonstration record"):
        read_record(bad)


def test_records_folder_as_demos_and_the_offline_message(tmp_path: Path) -> None:
    _save(tmp_path / "rec" / "babyai" / "BabyAI-MixedTrainLocal-v0" / "goto" / "r-seed3-rew1.00-len1.npz",
          ["o0", "o1"], ["", "go forward"], [False, True])
    demos = load_demos(str(tmp_path / "rec"))
    (demo,) = demos["balrog/babyai/goto"]
    assert (demo.seed, demo.steps, demo.original) == (3, (("o0", "go forward"), ("o1", "")), True)
    params = get_agent("few-shot").params({"demos": str(tmp_path / "rec")})
    preflight("few-shot", params, [get_task("balrog/babyai/goto")])
    with pytest.raises(PlaybenchError, match="no demonstration for balrog/babyai/open"):
        preflight("few-shot", params, [get_task("balrog/babyai/open")])
    # Baba Is AI draws another task's records: its own alone are not enough
    _save(tmp_path / "rec" / "babaisai" / "env" / "goto_win" / "r-seed3-rew1.00-len1.npz",
          ["o0", "o1"], ["", "up"], [False, True])
    load_demos.cache_clear()
    params = get_agent("few-shot").params({"demos": str(tmp_path / "rec")})
    with pytest.raises(PlaybenchError, match="another Baba Is AI task"):
        preflight("few-shot", params, [get_task("balrog/babaisai/goto_win")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(PlaybenchError, match="not available offline"):
        load_demos(str(tmp_path / "empty"))
    with pytest.raises(PlaybenchError, match="not available offline"):
        preflight("few-shot", get_agent("few-shot").params({}), [get_task("balrog/babyai/goto")])
