"""Few-shot with BALROG's own records sends, byte for byte, what BALROG's FewShotAgent sends (``data/few_shot_balrog.json``).

The facts come from BALROG's few-shot code run unchanged (balrog-ai/BALROG ``af7d1f1``: ``FewShotAgent``,
``InContextDataset.load_in_context_learning_episode``, ``HistoryPromptBuilder``) over records that
balrog-demo's ``EpisodeRecorder`` wrote, with the instruction and observations of playbench's game of the
same task and seed (their equality with BALROG's own is checked in ``tests/balrog/test_balrog_requests.py``).
Two demonstrations and ``max_icl_history`` 8: the numbering of the episodes, and the second one cut short,
keeping its END line, in either order. Which demonstrations an episode draws is random in both (Python's
``random`` after the episode's seeding in BALROG, the episode's own RNG in playbench): not compared.
"""

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from helpers import textworld_cache
from playbench.agents.registry import get_agent
from playbench.core.registry import get_task
from playbench.models import create_model
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode
from playbench.suites.balrog.submission import original_name

FACTS = json.loads((Path(__file__).parent / "data" / "few_shot_balrog.json").read_text())
TEXTS = FACTS["texts"]
ENVS = list(FACTS["envs"])


@pytest.fixture(scope="module")
def tw_cache(tmp_path_factory):
    """A private TextWorld cache (one coin-collector game is made on first use)."""
    root = tmp_path_factory.mktemp("tw-cache")
    with textworld_cache(root):
        yield root


def _write_record(path: Path, record: dict) -> None:
    """A record laid out as ``EpisodeRecorder._save`` lays it out: the reset's observation first (its action,
    reward and flags zeros of their type), one array per key, ``text`` and ``image`` object arrays."""
    long_term = [TEXTS[i] for i in record["long_term"]]
    short_term = [TEXTS[i] for i in record["short_term"]]
    n = len(long_term)
    episode = {
        "text": np.array([{"long_term_context": lt, "short_term_context": st} for lt, st in zip(long_term, short_term, strict=True)]),
        "image": np.array([None] * n),
        "action": np.array(["", *record["actions"]]),
        "reward": np.zeros(n),
        "terminated": np.zeros(n, dtype=bool),
        "truncated": np.arange(n) == n - 1,
    }
    assert {key: value.dtype.kind for key, value in episode.items()} == FACTS["record_layout"]
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **episode)


def _requests(case: dict, order: str) -> list[list[dict]]:
    return [[{"role": role, "content": TEXTS[i]} for role, i in request] for request in case["requests"][order]]


@pytest.mark.parametrize("env", ENVS)
def test_few_shot_sends_balrogs_requests(env: str, tmp_path: Path, tw_cache: Path) -> None:
    case = FACTS["envs"][env]
    records = tmp_path / "records"
    balrog_env, _ = original_name(case["task"])
    for record in case["records"].values():
        assert record["file"].startswith(f"{balrog_env}/{case['demo_task']}/")
        _write_record(records / record["file"], record)
    script = tmp_path / "answers.json"
    script.write_text(json.dumps(case["answers"]))
    config = FACTS["config"]
    spec = get_agent("few-shot")
    params = spec.params({"demos": str(records), "icl_episodes": str(config["icl_episodes"]),
                          "max_icl_history": str(config["max_icl_history"])})
    task = get_task(case["task"])
    job = EpisodeJob(task, task.params(case["task_params"]), 0, case["seed"])
    record, steps = asyncio.run(play_episode(job, spec.factory(params, create_model("mock/facts", {"script": str(script)})),
                                             "few-shot", "mock"))
    assert record.status == "ok", record.error
    sent = [[{"role": m["role"], "content": m["content"]} for m in step.messages] for step in steps]
    first_demo = TEXTS[case["records"]["A"]["long_term"][0]]
    order = "AB" if sent[0][2]["content"] == f"Obesrvation:\n{first_demo}" else "BA"  # the draw: not compared
    expected = _requests(case, order)
    assert expected != _requests(case, "AB" if order == "BA" else "BA")  # the order does change the request
    assert len(sent) == len(expected)
    for number, (ours, theirs) in enumerate(zip(sent, expected, strict=True)):
        assert [m["role"] for m in ours] == [m["role"] for m in theirs], number
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert a["content"] == b["content"], f"request {number}, message {i}"


def test_textworld_never_shows_the_record_of_the_game_played(tmp_path: Path, tw_cache: Path) -> None:
    """BALROG's TextWorld records name the game's position as their seed; the played game's own record is left
    out (BALROG's ``demo_path``: no solution in the context), the others are shown."""
    case = FACTS["envs"]["textworld"]
    records = tmp_path / "records"
    folder = Path(case["records"]["A"]["file"]).parent
    played, other = case["records"]["A"], case["records"]["B"]
    _write_record(records / folder / "20241201T225823-seed0-rew0.00-len2.npz", played)  # game 0: the one played
    _write_record(records / folder / "20241201T225823-seed5-rew0.00-len3.npz", other)
    script = tmp_path / "answers.json"
    script.write_text(json.dumps(case["answers"]))
    spec = get_agent("few-shot")
    agent = spec.factory(spec.params({"demos": str(records), "icl_episodes": "2"}),
                         create_model("mock/facts", {"script": str(script)}))
    task = get_task(case["task"])
    job = EpisodeJob(task, task.params(case["task_params"]), 0, case["seed"])
    record, steps = asyncio.run(play_episode(job, agent, "few-shot", "mock"))
    assert record.status == "ok", record.error
    assert record.instance["position"] == 0
    first = [m["content"] for m in steps[0].messages]
    assert [m for m in first if "START OF DEMONSTRATION EPISODE" in m] == ["****** START OF DEMONSTRATION EPISODE 1 ******"]
    only_played, only_other = set(played["long_term"]) - set(other["long_term"]), set(other["long_term"]) - set(played["long_term"])
    assert only_played and only_other  # each record has an observation of its own
    assert all(f"Obesrvation:\n{TEXTS[i]}" in first for i in only_other)
    assert not any(f"Obesrvation:\n{TEXTS[i]}" in first for i in only_played)
