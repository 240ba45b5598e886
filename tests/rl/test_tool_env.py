"""ToolEnv: TRL's environment_factory contract, the benchmark's handling of invalid actions, and parity with eval.

Parity: the executed actions of a recorded ``playbench eval`` episode (mock model, a third of its answers
invalid), played through ``act``, end the episode with the run's score, steps and rewards, on a task of
every multi-step suite (MANGO's tasks are one-step questions).
"""

import functools
import importlib.util
import inspect
import pickle
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import playbench
from playbench.core.errors import PlaybenchError
from playbench.rl import ChatEnv, ToolEnv, write_run

SEED = 5
#: (task, task parameters): multi-step tasks of every suite, each kept short
CASES: list[tuple[str, dict[str, Any]]] = [
    ("smartplay/hanoi-3", {}),
    ("smartplay/rps-basic", {"max_steps": 12}),
    ("smartplay/bandit-highlow", {"max_steps": 12}),
    ("smartplay/messenger-1", {}),
    ("smartplay/crafter", {"max_steps": 15}),
    ("smartplay/minecraft-plains", {"max_steps": 8}),
    ("balrog/babyai/goto", {"max_steps": 25}),
    ("balrog/babaisai/goto_win", {"max_steps": 25}),
    ("balrog/crafter/default", {"max_steps": 15}),
    ("balrog/textworld/coin_collector", {"max_steps": 10}),
    ("grasp/energy-interactive", {}),
]
#: the engines a case needs (it is skipped where the engine is not installed)
ENGINES = {"balrog/crafter/default": "crafter", "balrog/textworld/coin_collector": "textworld",
           "balrog/babyai/goto": "minigrid"}


def trl_tools(env: object) -> list[Any]:
    """The methods TRL exposes as tools: public bound methods but its reserved ``reset`` and ``get_reward``."""
    return [member for name, member in inspect.getmembers(env, predicate=inspect.ismethod)
            if name not in ("reset", "get_reward") and not name.startswith("_")]


def close(env: ToolEnv) -> None:
    """End an unfinished episode (ToolEnv has no public close: TRL would offer it to the model as a tool)."""
    if env.chat_env is not None:
        env.chat_env.close()


def eval_episodes(task: str, params: dict[str, Any], log_dir: Path) -> tuple[Any, list[Any]]:
    run = playbench.eval(task, model="mock/demo", episodes=2, seed=SEED, log_dir=log_dir, task_params=params,
                         model_params={"invalid_rate": 0.3})
    log = playbench.read_run(run.path)
    return log, log.episodes()


@pytest.mark.parametrize(("task", "params"), CASES, ids=[c[0] for c in CASES])
def test_the_runs_executed_actions_end_with_its_score(task: str, params: dict[str, Any], tmp_path: Path) -> None:
    engine = ENGINES.get(task)
    if engine is not None and importlib.util.find_spec(engine) is None:
        pytest.skip(f"{engine} is not installed")
    log, records = eval_episodes(task, params, tmp_path)
    assert [r.status for r in records] == ["ok", "ok"]
    env = ToolEnv()  # one environment, reset for each episode, as TRL reuses its instances
    for record in records:
        steps = log.read_trajectory(record)
        first = env.reset(task=task, index=record.index, seed=SEED, **params)
        assert isinstance(first, str) and first and not env.done
        for step in steps:
            text = env.act(step.executed)
            assert isinstance(text, str) and text
        assert env.done and env.score == record.score
        assert env.reward == pytest.approx(sum(s.reward for s in steps))
        played = env.chat_env.steps() if env.chat_env is not None else []
        assert [s.executed for s in played] == [s.executed for s in steps]
        assert [s.score for s in played] == [s.score for s in steps]
        # what the run played as a legal action is legal here too (GRASP's default, NOOP, is not a legal action)
        assert all(p.valid for p, s in zip(played, steps, strict=True) if s.valid)


def test_the_runs_answers_give_its_records_and_the_invalid_ones_its_notes(tmp_path: Path) -> None:
    """The run's raw answers as tool arguments: the same steps, valid or not, and the notes BALROG sends."""
    log, records = eval_episodes("balrog/babyai/goto", {"max_steps": 25}, tmp_path)
    env = ToolEnv("balrog/babyai/goto", task_params={"max_steps": 25})
    for record in records:
        steps = log.read_trajectory(record)
        assert any(not s.valid for s in steps)
        env.reset(index=record.index, seed=SEED)
        for n, step in enumerate(steps):
            text = env.act(step.raw_output or "")
            if n + 1 < len(steps):  # the newest message of the run's next request, less naive's answer format
                sent = steps[n + 1].messages
                assert sent is not None and sent[-1]["content"].startswith(text + "\n\n")
                assert ("Defaulted to action: go forward" in text) == (not step.valid)
        assert env.chat_env is not None and env.score == record.score
        assert env.chat_env.record().invalid_actions == record.invalid_actions > 0


def test_what_trl_calls(tmp_path: Path) -> None:
    """The contract of GRPOTrainer(environment_factory=...): built with no arguments, reset(**row) -> str,
    the tools TRL finds on the instance, a reward function reading env.score / env.reward."""
    for factory in (ToolEnv, functools.partial(ToolEnv, "smartplay/hanoi-3")):
        factory = pickle.loads(pickle.dumps(factory))  # the async trainer pickles the factory
        env = factory()
        tools = trl_tools(env)
        assert [t.__name__ for t in tools] == ["act"]
        sig = inspect.signature(tools[0])
        assert list(sig.parameters) == ["action"] and sig.parameters["action"].annotation is str
        assert sig.return_annotation is str
        row = {"prompt": [{"role": "user", "content": "Play."}], "task": "smartplay/hanoi-3", "index": 1,
               "seed": 0}
        first = env.reset(**row)
        assert first.startswith("The game consists of three rods") and "Current configuration" in first
        assert "You always have to output" not in first  # naive's answer format: the tool replaces it
        assert [t.__name__ for t in trl_tools(env)] == ["act"]
        answer = {t.__name__: t for t in trl_tools(env)}["act"](action="Move the top disk of rod A to the top of rod C")
        assert answer.startswith("Current Observation:")
        close(env)

    def score_reward(completions: list[Any], environments: list[ToolEnv], **kwargs: Any) -> list[float]:
        return [env.score if env.score is not None else 0.0 for env in environments]

    won = ToolEnv("smartplay/hanoi-3")
    won.reset(task="smartplay/hanoi-3", index=0, seed=0)
    for move in ("A to the top of rod C", "A to the top of rod B", "C to the top of rod B", "A to the top of rod C",
                 "B to the top of rod A", "B to the top of rod C", "A to the top of rod C"):
        text = won.act(f"Move the top disk of rod {move}")
    assert text == "The episode is over (ok)." and won.act("anything") == text
    unfinished = ToolEnv()
    unfinished.reset(task="smartplay/hanoi-3")
    assert won.score is not None and won.score > 0
    assert score_reward([None, None], environments=[won, unfinished]) == [won.score, 0.0]
    assert won.reward > 0 and unfinished.reward == 0.0 and unfinished.score is None
    assert won.chat_env is not None
    assert [r.score for r in write_run(tmp_path, [won.chat_env]).episodes()] == [won.score]  # a rollout as a run
    unfinished.reset(task="smartplay/hanoi-3")  # an unfinished episode is closed by the next reset
    close(unfinished)


def test_the_tools_schema_names_the_tasks_actions() -> None:
    """What the model sees: transformers' schema of the bound tool (TRL renders it with the chat template)."""
    schema_of = pytest.importorskip("transformers.utils").get_json_schema
    task = ToolEnv("balrog/babaisai/goto_win")
    schema = schema_of(trl_tools(task)[0])["function"]
    assert schema["name"] == "act" and schema["parameters"]["required"] == ["action"]
    described = schema["parameters"]["properties"]["action"]["description"]
    assert described == 'The action to play, one of: "idle", "up", "right", "down", "left".'
    assert task.actions == ["idle", "up", "right", "down", "left"]
    generic = schema_of(trl_tools(ToolEnv())[0])["function"]["parameters"]["properties"]["action"]["description"]
    assert "instructions name" in generic
    assert "one of:" not in generic and ToolEnv.act.__doc__ is not None and "one of:" not in ToolEnv.act.__doc__


def test_bad_rows_are_one_line_errors() -> None:
    env = ToolEnv()
    with pytest.raises(PlaybenchError, match="reset first"):
        env.act("up")
    with pytest.raises(PlaybenchError, match="names no task"):
        env.reset(index=0)
    with pytest.raises(PlaybenchError, match="colour"):  # an unknown column is an unknown task parameter
        env.reset(task="smartplay/hanoi-3", colour="red")
    with pytest.raises(PlaybenchError, match="made for smartplay/hanoi-3"):
        ToolEnv("smartplay/hanoi-3").reset(task="smartplay/hanoi-4")
    with pytest.raises(PlaybenchError, match="images=true"):
        env.reset(task="balrog/babaisai/goto_win", images=True)
    env.reset(task="smartplay/hanoi-3")
    with pytest.raises(PlaybenchError, match="as a string"):
        env.act(3)  # type: ignore[arg-type]
    assert env.chat_env is not None and env.chat_env.steps() == []  # nothing was played
    close(env)


def test_an_episode_starting_with_other_actions_is_refused() -> None:
    """A ToolEnv made for a task names its actions; an episode whose game offers others is not played."""
    env = ToolEnv("grasp/energy-interactive", task_params={"movement": "4"})
    assert env.actions == ["UP", "DOWN", "LEFT", "RIGHT", "TAKE", "DROP", "STOP"]
    with pytest.raises(PlaybenchError, match="not the"):
        env.reset(index=0, movement=8)
    assert env.chat_env is not None and not env.chat_env.done and env.chat_env.request is None  # closed


def test_one_env_per_group_member_starts_identical() -> None:
    """A GRPO group: G environments reset with the same row start the same episode (ChatEnv's seeds)."""
    row: dict[str, Any] = {"task": "balrog/babyai/goto", "index": 3, "seed": 7}
    group = [ToolEnv() for _ in range(3)]
    firsts = {env.reset(**row) for env in group}
    assert len(firsts) == 1
    alone = ChatEnv("balrog/babyai/goto", index=3, seed=7)
    assert next(iter(firsts)).endswith(alone.reset()[-1]["content"].split("\n\nYou always have to")[0])
    alone.close()
    for env in group:
        close(env)


class StandInConfig:
    """GRPOConfig: the one field the stand-in reads, and the others the example sets."""

    def __init__(self, max_tool_calling_iterations: int, **fields: Any) -> None:
        self.max_tool_calling_iterations = max_tool_calling_iterations
        self.fields = fields


class StandInTrainer:
    """The calls GRPOTrainer (TRL 1.9) makes on an environment_factory, without a model: the factory pickled
    (the async trainer's), one instance per rollout, tools found with inspect.getmembers, reset(**row) (the
    whole row) appended to the row's prompt, tools called by name with keyword arguments, then the reward
    functions given the environments. The policy is scripted: the actions the tool's schema lists, in turn,
    with an invalid one among them."""

    def __init__(self, model: str, args: StandInConfig, train_dataset: Any, reward_funcs: Any,
                 environment_factory: Any) -> None:
        self.args, self.dataset, self.reward_funcs = args, train_dataset, reward_funcs
        self.factory = pickle.loads(pickle.dumps(environment_factory))
        self.rewards: list[float] = []
        self.environments: list[Any] = []

    def train(self) -> None:
        schema_of = pytest.importorskip("transformers.utils").get_json_schema
        rows = [row for row in list(self.dataset)[:2] for _ in range(2)]  # two rows, a group of two each
        self.environments = [self.factory() for _ in rows]
        prompts = []
        for env, row in zip(self.environments, rows, strict=True):
            tools = {tool.__name__: tool for tool in trl_tools(env)}
            described = schema_of(tools["act"])["function"]["parameters"]["properties"]["action"]["description"]
            actions = [*described.split(": ", 1)[1].rstrip(".").replace('"', "").split(", "), "dance"]
            observation = env.reset(**row)
            prompts.append(row["prompt"][:-1] + [{**row["prompt"][-1],
                                                  "content": row["prompt"][-1]["content"] + observation}])
            for n in range(self.args.max_tool_calling_iterations):
                tools["act"](**{"action": actions[n % len(actions)]})
        self.rewards = self.reward_funcs(prompts=prompts, completions=[None] * len(rows),
                                         environments=self.environments)


def test_the_trl_example_of_docs_rl_runs(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("datasets")
    text = (repo_root / "docs" / "rl.md").read_text().split("## TRL", 1)[1]
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    trl = types.ModuleType("trl")
    trl.GRPOConfig = StandInConfig  # type: ignore[attr-defined]
    trl.GRPOTrainer = StandInTrainer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "trl", trl)
    names: dict[str, Any] = {}
    exec(compile(block, "docs/rl.md", "exec"), names)  # noqa: S102  (our own documentation's example)
    trainer = names["trainer"]
    envs = trainer.environments
    assert all(env.done for env in envs) and len({env.chat_env.seed for env in envs}) == 2  # two episodes
    assert trainer.rewards == [env.score for env in envs]  # every episode ended ok: its official score
    for one, other in (envs[0], envs[1]), (envs[2], envs[3]):  # a group: one episode, the same actions
        assert one.score == other.score and one.reward == other.reward
        assert [s.observation for s in one.chat_env.steps()] == [s.observation for s in other.chat_env.steps()]
    assert any(not s.valid for s in envs[0].chat_env.steps())  # "dance" played the default action
