"""Every BALROG strategy sends, step by step, the request BALROG itself sends (``data/requests_*.json``).

The data files are facts: BALROG's own evaluator loop, agents, prompt builder and instruction prompts
(balrog-ai/BALROG ``af7d1f1``), run unchanged over the observations of the same playbench game, seed and
scripted answers (see ``data/README.md``). Each episode has one answer that names no action, so BALROG's
invalid-action feedback is part of what is compared. Default mode may differ only by the fixes the spec
calls bugs; with these answers none of B5-B8 shows, and NetHack's prompt differs by B9 alone.
"""

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import textworld_cache
from playbench.agents.registry import get_agent
from playbench.cli.eval_cmd import command as eval_command
from playbench.core.registry import get_task
from playbench.models import create_model
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode

DATA = Path(__file__).parent / "data"
ENVS = ["babyai", "crafter", "textworld", "babaisai", "minihack", "nle"]
STRATEGIES = ["naive", "cot", "robust-naive", "robust-cot", "few-shot"]


def _load(env: str) -> dict:
    """A facts file with its requests expanded (each distinct text is stored once, under ``texts``)."""
    data = json.loads((DATA / f"requests_{env}.json").read_text())
    texts = data.pop("texts")
    for case in data["modes"].values():
        for strategy in case["strategies"].values():
            strategy["requests"] = [[{"role": role, "content": texts[i]} for role, i in request]
                                    for request in strategy["requests"]]
    return data


@pytest.fixture(scope="module")
def tw_cache(tmp_path_factory):
    """A private TextWorld cache (one coin-collector game is generated on first use)."""
    root = tmp_path_factory.mktemp("tw-cache")
    with textworld_cache(root):
        yield root


def _demos(case: dict, folder: Path) -> str:
    """The demonstration run the facts were built from, made again (the random agent is seeded)."""
    demo = case["demo"]
    args = [case["task"], "--agent", demo["agent"], "--episodes", "1", "--seed", str(demo["seed"]),
            "--log-dir", str(folder), "--quiet"]
    for key, value in demo["task_params"].items():
        args += ["-T", f"{key}={value}"]
    result = CliRunner().invoke(eval_command, args)
    assert result.exit_code == 0, result.output
    return str(folder)


def _records(case: dict, folder: Path) -> str:
    """The demonstration as BALROG's own record: an ``.npz`` as balrog-demo's EpisodeRecorder saves it.

    Transitions from the reset on (its action a zero placeholder), every observation field an array
    (``text`` dicts as an object array, ``image`` None), then reward, terminated, truncated. Baba Is AI
    draws from another task, so the record sits under another task too.
    """
    import numpy as np

    steps = case["demo"]["steps"]
    texts = [{"long_term_context": obs, "short_term_context": ""} for obs, _ in steps]
    episode = {"action": np.array([""] + [action for _, action in steps[:-1]]), "text": np.array(texts),
               "image": np.array([None] * len(steps)), "reward": np.zeros(len(steps)),
               "terminated": np.zeros(len(steps), dtype=bool), "truncated": np.arange(len(steps)) == len(steps) - 1}
    env = case["task"].split("/")[1]
    tasks = [case["original_task"]] + (["env/make_win"] if env == "babaisai" else [])
    for task in tasks:
        target = folder / env / task / f"20241201T225823-seed{case['seed'] + 1000}-rew0.00-len{len(steps) - 1}.npz"
        target.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(target, **episode)
    return str(folder)


def _play(case: dict, strategy: str, compat: bool, tmp_path: Path, records: bool = False) -> list[list[dict]]:
    """The requests playbench sends for this case, one list of messages per step."""
    script = tmp_path / "answers.json"
    script.write_text(json.dumps(case["strategies"][strategy]["answers"]))
    agent_params: dict = {"compat": "true"} if compat else {}
    if strategy == "few-shot":
        agent_params["demos"] = _records(case, tmp_path / "records") if records else _demos(case, tmp_path / "demos")
    spec = get_agent(strategy)
    model = create_model("mock/facts", {"script": str(script)})
    task = get_task(case["task"])
    job = EpisodeJob(task, task.params(case["task_params"]), 0, case["seed"])
    record, steps = asyncio.run(play_episode(job, spec.factory(spec.params(agent_params), model), strategy, "mock"))
    assert record.status == "ok", record.error
    # BALROG rejected exactly what playbench rejects (TextWorld accepts every command)
    assert [s.extra["completion"] for s in steps if not s.valid] == case["strategies"][strategy]["failed_candidates"]
    return [[{"role": m["role"], "content": m["content"]} for m in step.messages] for step in steps]


def _without_b9(prompt: str, legal: set[str]) -> str:
    """BALROG's NetHack prompt without the actions that are not valid (B9, the one fix the default makes)."""
    head, rest = prompt.split(":\n\n", 1)
    block, tail = rest.split("\n\nTips:", 1)
    kept = [entry for entry in block[:-1].split(",\n") if entry.split(": ", 1)[0] in legal]
    return f"{head}:\n\n" + ",\n".join(kept) + ".\n\nTips:" + tail


def _legal(case: dict) -> set[str]:
    task = get_task(case["task"])
    game = task.make_game(task.params(case["task_params"]), 0)
    try:
        game.reset(seed=case["seed"])
        return set(game.legal_actions())
    finally:
        game.close()


@pytest.mark.parametrize("mode", ["default", "compat"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("env", ENVS)
def test_requests_equal_balrogs(env: str, strategy: str, mode: str, tmp_path: Path, tw_cache: Path) -> None:
    case = _load(env)["modes"][mode]
    expected = case["strategies"][strategy]["requests"]
    if env == "nle" and mode == "default":  # B9: the default prompt lists only actions that exist
        legal = _legal(case)
        expected = [[{**m, "content": _without_b9(m["content"], legal)} if i == 0 else m for i, m in enumerate(req)]
                    for req in expected]
    got = _play(case, strategy, mode == "compat", tmp_path)
    assert len(got) == len(expected)
    for step, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        assert [m["role"] for m in ours] == [m["role"] for m in theirs], step
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert a["content"] == b["content"], f"step {step}, message {i}"


@pytest.mark.parametrize("env", ENVS)
def test_few_shot_reads_balrogs_records(env: str, tmp_path: Path, tw_cache: Path) -> None:
    """Given the same demonstration as BALROG's own ``.npz`` record, few-shot sends BALROG's requests."""
    case = _load(env)["modes"]["default"]
    expected = case["strategies"]["few-shot"]["requests"]
    if env == "nle":
        legal = _legal(case)
        expected = [[{**m, "content": _without_b9(m["content"], legal)} if i == 0 else m for i, m in enumerate(req)]
                    for req in expected]
    assert _play(case, "few-shot", False, tmp_path, records=True) == expected


def test_feedback_is_in_the_facts() -> None:
    """The facts do exercise the invalid-action path (so the comparison above covers it)."""
    for env in ENVS:
        case = _load(env)["modes"]["default"]
        text = json.dumps(case["strategies"]["naive"]["requests"])
        if env != "textworld":  # TextWorld accepts every command
            assert "Your previous output did not contain a valid action. Defaulted to action:" in text, env
        assert "List of all actions:" not in text
