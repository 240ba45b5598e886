"""Prompt strategies against real games, driven by the real runner and the mock provider."""

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from playbench.agents.base import EpisodeContext, Turn
from playbench.agents.prompts import balrog, parse, smartplay
from playbench.agents.prompts.matching import balrog_valid, smartplay_compat, smartplay_fixed
from playbench.agents.registry import get_agent
from playbench.agents.strategies import preflight
from playbench.agents.two_stage import trim_history
from playbench.cli.eval_cmd import command as eval_command
from playbench.core.errors import PlaybenchError
from playbench.core.game import Game
from playbench.core.registry import get_task
from playbench.core.task import Task
from playbench.models import create_model
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode

ACTIONS = ["go left", "go right", "wait"]


class Corridor(Game):
    """A tiny game: walk a corridor for a fixed number of steps; optional image observations."""

    def __init__(self, steps: int = 25, images: bool = False, manual: str = "Walk the corridor. PLAY!") -> None:
        super().__init__()
        self.steps, self.images, self.manual = steps, images, manual

    def legal_actions(self) -> list[str]:
        return list(ACTIONS)

    @property
    def default_action(self) -> str:
        return "wait"

    def _info(self) -> dict:
        info = {"manual": self.manual, "obs": self._obs(), "history": "", "score": float(self.pos), "completed": 0}
        if self.images:
            info["image"] = np.full((4, 4, 3), self.t, dtype=np.uint8)
        return info

    def _obs(self) -> str:
        return f"You are at {self.pos} after {self.t} steps."

    def reset(self, *, seed=None, options=None):  # noqa: ANN001
        super().reset(seed=seed)
        self.pos, self.t = 0, 0
        return self._obs(), self._info()

    def step(self, action: str):  # noqa: ANN201
        self.t += 1
        self.pos += {"go left": -1, "go right": 1}.get(action, 0)
        return self._obs(), 0.0, False, self.t >= self.steps, self._info()


def corridor_task(**kw: object) -> Task:
    return Task(id="test/corridor", description="test", make_game=lambda p, i: Corridor(**kw))


def play(task: Task, agent_name: str, model_params: dict | None = None, agent_params: dict | None = None,
         index: int = 0):
    spec = get_agent(agent_name)
    params = spec.params(agent_params or {})
    model = create_model("mock/test", model_params or {})
    job = EpisodeJob(task, task.params({}) if task.params_model else None, index, 1234 + index)
    return asyncio.run(play_episode(job, spec.factory(params, model), agent_name, "mock/test"))


def write_script(tmp_path: Path, answers: list) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(answers))
    return str(path)


def test_history_assembly_matches_balrog(tmp_path: Path) -> None:
    record, steps = play(corridor_task(images=True), "naive", agent_params={"max_image_history": 1})
    assert record.status == "ok" and record.steps == 25 and record.invalid_actions == 0
    msgs = steps[20].messages
    assert msgs[0] == {"role": "user", "content": "Walk the corridor. PLAY!"}  # the game's prompt, nothing added
    events = msgs[1:]
    assert len(events) == 32
    assert [m["role"] for m in events] == ["assistant", "user"] * 16
    assert events[-1]["content"] == f"Current Observation:\nYou are at {record_pos(steps, 20)} after 20 steps.\n" \
        f"Image observation provided.\n\n{balrog.NAIVE}"
    assert all(m["content"].startswith("Observation:\nYou are at") for m in events[1:-1:2])
    with_images = [m for m in msgs if m.get("images")]
    assert with_images == [events[-1]] and with_images[0]["images"][0]["width"] == 4
    assert [m["content"] for m in events[::2]] == [s.raw_output for s in steps[4:20]]  # raw outputs, oldest first


def record_pos(steps, k: int) -> int:
    return int(steps[k].observation.split()[3])


def test_text_window_leaves_bare_observations() -> None:
    _, steps = play(corridor_task(), "naive", agent_params={"max_text_history": 2, "max_image_history": 0})
    msgs = steps[10].messages
    users = [m["content"] for m in msgs[1:] if m["role"] == "user"]
    assert len(msgs) == 1 + 4  # deque of 2*2 events
    assert users[0].startswith("Observation:\nYou are at") and users[-1].startswith("Current Observation:")


def test_invalid_action_feedback_default_and_raw_history(tmp_path: Path) -> None:
    script = write_script(tmp_path, ["jump around", "go right", "go right"])
    record, steps = play(corridor_task(steps=3), "naive", {"script": script})
    assert [s.valid for s in steps] == [False, True, True] and record.invalid_actions == 1
    assert steps[0].executed == "wait" and steps[0].raw_output == "jump around" and steps[0].action is None
    current = steps[1].messages[-1]["content"]
    assert current.startswith("Current Observation:\n" + balrog.FEEDBACK.format(action="wait", text="You are at 0"))
    assert steps[1].messages[-2] == {"role": "assistant", "content": "jump around"}


@pytest.mark.parametrize("compat", [True, False])
def test_empty_answer_turn_is_kept_in_fixed_mode(tmp_path: Path, compat: bool) -> None:
    script = write_script(tmp_path, ["", "go right"])
    _, steps = play(corridor_task(steps=2), "naive", {"script": script}, {"compat": compat})
    roles = [m["role"] for m in steps[1].messages]
    if compat:  # B6: two observations in a row
        assert roles == ["user", "user", "user"]
    else:
        assert roles == ["user", "user", "assistant", "user"]
        assert steps[1].messages[2]["content"] == balrog.NO_VALID_ACTION


def test_cot_keeps_latest_reasoning_as_previous_plan(tmp_path: Path) -> None:
    script = write_script(tmp_path, ["I go. ACTION: go left.", "Again. ACTION: go right", "x ACTION: wait"])
    record, steps = play(corridor_task(steps=3), "cot", {"script": script}, {"compat": True})
    assert [s.executed for s in steps] == ["go left", "go right", "wait"] and record.invalid_actions == 0
    assistants = [m["content"] for m in steps[2].messages if m["role"] == "assistant"]
    assert assistants == ["go left", "Previous plan:\nAgain. ACTION: go right"]
    assert steps[0].messages[-1]["content"].endswith("\n\n" + balrog.COT)


def test_custom_agent_plan_and_robust_tags(tmp_path: Path) -> None:
    script = write_script(tmp_path, ["PLAN: walk right\nACTION: go right", "PLAN: No changes to the plan.\nACTION: go right"])
    _, steps = play(corridor_task(steps=2), "custom", {"script": script})
    assert "You have no plan yet.\n\n" + balrog.CUSTOM in steps[0].messages[-1]["content"]
    assert "Current Plan:\nwalk right\n\n" + balrog.CUSTOM in steps[1].messages[-1]["content"]
    assert [s.executed for s in steps] == ["go right", "go right"]
    script = write_script(tmp_path, ["thinking... <|ACTION|>go left<|END|>", "no tags"])
    record, steps = play(corridor_task(steps=2), "robust-cot", {"script": script}, {"compat": True})
    assert steps[0].executed == "go left" and steps[1].extra["completion"] == balrog.ROBUST_COT_FAILED
    assert record.invalid_actions == 1


def test_parsers_acceptance_vectors() -> None:
    assert parse.naive("Move North.", True) == "Move North"
    assert parse.naive("12", True) == ""
    assert parse.cot("I think… ACTION: turn left.", True) == "turn left"
    assert parse.robust("x <|ACTION|> pick up <|END|> y", True, False) == "pick up"
    assert parse.robust("none", True, True) == balrog.ROBUST_COT_FAILED
    assert parse.custom("PLAN: a\nACTION: b\nc", True) == ("a", "b\nc")
    # fixed (B5): digits and punctuation survive, surrounding quotes and final period go
    assert parse.naive(" `12` ", False) == "12" and parse.naive('"go forward."', False) == "go forward"
    assert parse.cot("ACTION: **north**\nbecause", False) == "north"
    assert balrog_valid("Go Forward", ["go forward"], compat=False) == "go forward"
    assert balrog_valid("Go Forward", ["go forward"], compat=True) is None


def test_smartplay_match_act_compat_and_fixed() -> None:
    bandit = ["Pull slot machine 1.", "Pull slot machine 2."]
    assert smartplay_compat("Pull slot machine 2", bandit) is None  # falls back to action 0 (B8)
    assert smartplay_fixed("Pull slot machine 2", bandit) == "Pull slot machine 2."
    rps = ["Rock", "Paper", "Scissor"]
    assert smartplay_compat("not Rock, I pick Paper", rps) == "Rock"
    assert smartplay_compat("Scissors!", rps) == "Scissor" and smartplay_fixed("Scissors!", rps) == "Scissor"
    assert smartplay_fixed("I choose paper.", rps) == "Paper"
    hanoi = ["Move the top disk of rod A to the top of rod B", "Move the top disk of rod A to the top of rod C"]
    assert smartplay_fixed("**Move the top disk of rod A to the top of rod C**", hanoi) == hanoi[1]


def test_two_stage_exact_messages_on_hanoi() -> None:
    task = get_task("smartplay/hanoi-3")
    record, steps = play(task, "two-stage")
    assert record.status == "ok" and record.steps == 30
    first, later = steps[0].messages, steps[3].messages
    game = task.make_game(task.params({}), 0)
    _, info = game.reset(seed=1)
    assert [m["role"] for m in first] == ["system", "system", "system", "user", "assistant", "user"]
    assert first[0]["content"] == "You\u2019re a player trying to play the game."
    assert first[1]["content"] == info["manual"] and "List of all actions:\n1. Move" in info["manual"]
    assert first[2]["content"] == "current step observation: " + info["obs"]
    assert first[3]["content"] == smartplay.Q1 and first[3]["content"].endswith("step by step, ")
    assert first[4]["content"] == steps[0].extra["stage1"] and first[5]["content"] == smartplay.Q2
    assert later[2]["content"].startswith("Most recent 3 steps of the player's in-game observation:")
    assert steps[0].usage["calls"] == 2
    assert record.usage["calls"] == 60


def test_trim_history_drops_oldest_blocks() -> None:
    text = ("Most recent 3 steps of the player's in-game observation:\n\nPlayer Observation Step 4:\na\n\n"
            "Player Observation Step 5:\nb\n\nPlayer Observation Step 6:\nc")
    assert trim_history(text, 2) == "Most recent 1 steps of the player's in-game observation:\n\n" \
        "Player Observation Step 6:\nc"
    assert trim_history(text, 3) == "" and trim_history(text, 0) == text


def test_context_window_drops_oldest_history_and_records_it() -> None:
    record, steps = play(corridor_task(steps=12), "naive", {"context_window": "260"})
    assert record.status == "ok"
    dropped = [s.extra.get("history_dropped", 0) for s in steps]
    assert dropped[0] == 0 and max(dropped) > 0
    model = create_model("mock/test", {})
    from playbench.models import Message

    assert all(model.count_tokens([Message(m["role"], m["content"]) for m in s.messages]) <= 260 for s in steps)


def test_one_step_prompt_is_sent_unchanged_or_refused() -> None:
    task = get_task("mango/df")
    assert task.one_step
    with pytest.raises(PlaybenchError, match="official prompt"):
        preflight("cot", get_agent("cot").params({}), [task])
    preflight("cot", get_agent("cot").params({"allow_prompt_change": "true"}), [task])
    preflight("naive", get_agent("naive").params({}), [task])
    record, steps = play(task, "naive")
    assert record.steps == 1
    # the release's exact request: its system message and the prompt as the user turn
    assert steps[0].messages == [{"role": "system", "content": "You are a helpful assistant."},
                                 {"role": "user", "content": steps[0].observation}]
    assert steps[0].action == steps[0].raw_output
    # GRASP sends its official system + user pair unchanged too
    record, steps = play(get_task("grasp/energy"), "naive")
    assert [m["role"] for m in steps[0].messages] == ["system", "user"]
    assert steps[0].observation == steps[0].messages[0]["content"] + "\n\n" + steps[0].messages[1]["content"]


def test_few_shot_needs_and_uses_demonstrations(tmp_path: Path) -> None:
    task = get_task("smartplay/hanoi-3")
    with pytest.raises(PlaybenchError, match="demos=PATH"):
        preflight("few-shot", get_agent("few-shot").params({}), [task])
    result = CliRunner().invoke(eval_command, ["smartplay/hanoi-3", "--agent", "oracle", "--episodes", "3",
                                               "--log-dir", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    params = get_agent("few-shot").params({"demos": str(tmp_path), "compat": "true"})
    preflight("few-shot", params, [task])
    with pytest.raises(PlaybenchError, match="no demonstration for smartplay/rps-basic"):
        preflight("few-shot", params, [get_task("smartplay/rps-basic")])
    spec = get_agent("few-shot")
    model = create_model("mock/test")
    agent = spec.factory(params, model)
    game = task.make_game(task.params({}), 0)
    obs, info = game.reset(seed=5)
    asyncio.run(agent.start(EpisodeContext(task.id, 0, 5, info["manual"], game)))
    decision = asyncio.run(agent.act(Turn(0, obs, info, game.legal_actions())))
    contents = [m["content"] for m in decision.messages]
    assert contents[1] == balrog.ICL_START.format(k=1) and contents[2].startswith("Obesrvation:\n")
    assert balrog.ICL_END.format(k=1) in contents and balrog.ICL_TURN in contents
    assert decision.messages[3]["role"] == "assistant" and decision.action in game.legal_actions()
    assert contents[-1].endswith(balrog.NAIVE)


def test_action_list_is_opt_in() -> None:
    """The default sends the game's instruction prompt as is; ``-A list_actions`` adds the numbered list."""
    listed = "Walk the corridor. PLAY!\n\nList of all actions:\n1. go left\n2. go right\n3. wait"
    for params, expected in [({}, "Walk the corridor. PLAY!"), ({"compat": True}, "Walk the corridor. PLAY!"),
                             ({"list_actions": "never"}, "Walk the corridor. PLAY!"),
                             ({"list_actions": "auto"}, listed), ({"list_actions": "always"}, listed),
                             ({"list_actions": "auto", "compat": True}, listed)]:
        _, steps = play(corridor_task(steps=1), "naive", agent_params=params)
        assert steps[0].messages[0]["content"] == expected, params
    # auto adds nothing to a prompt that already numbers the actions; always adds it again
    numbered = "Walk. PLAY!\n\nList of all actions:\n1. go left\n2. go right\n3. wait"
    _, auto = play(corridor_task(steps=1, manual=numbered), "naive", agent_params={"list_actions": "auto"})
    _, always = play(corridor_task(steps=1, manual=numbered), "naive", agent_params={"list_actions": "always"})
    assert auto[0].messages[0]["content"] == numbered
    assert always[0].messages[0]["content"] == numbered + "\n\nList of all actions:\n1. go left\n2. go right\n3. wait"


def test_mock_reads_balrogs_described_actions() -> None:
    """Without a numbered list the mock model picks from BALROG's ``name: description,`` block."""
    from playbench.models.mockbrain import described_actions
    from playbench.suites.balrog.protocol import BABYAI_ACTIONS, babyai_prompt, textworld_prompt

    assert described_actions(babyai_prompt("go to the grey ball")) == list(BABYAI_ACTIONS)
    assert described_actions(textworld_prompt("coin_collector")) == []
    assert described_actions("a: do a,\nb: do b.\nlater: text,\nc: do c.") == ["later", "c"]


def test_few_shot_demonstrations_as_balrog_builds_them() -> None:
    """First observation, then (action, observation) pairs; ``max_icl_history`` counts messages (get_icl_prompt)."""
    from playbench.agents.few_shot import Demo, demo_messages

    demos = [Demo("t", 1, (("o0", "a0"), ("o1", "a1"), ("o2", "a2"))), Demo("t", 2, (("p0", "b0"), ("p1", "b1")))]
    whole = [(m.role, m.content) for m in demo_messages(demos, 1000)]
    assert whole == [("user", balrog.ICL_START.format(k=1)), ("user", "Obesrvation:\no0"), ("assistant", "a0"),
                     ("user", "Obesrvation:\no1"), ("assistant", "a1"), ("user", "Obesrvation:\no2"),
                     ("user", balrog.ICL_END.format(k=1)), ("user", balrog.ICL_START.format(k=2)),
                     ("user", "Obesrvation:\np0"), ("assistant", "b0"), ("user", "Obesrvation:\np1"),
                     ("user", balrog.ICL_END.format(k=2))]
    # 5 + 3 messages: the second episode would pass 6, so it is cut to 1 message, keeps END and is the last
    cut = [(m.role, m.content) for m in demo_messages(demos, 6)]
    assert cut == whole[:7] + [("user", balrog.ICL_START.format(k=2)), ("user", "Obesrvation:\np0"),
                               ("user", balrog.ICL_END.format(k=2))]
    assert demo_messages(demos, 4)[-1].content == balrog.ICL_END.format(k=1)
    assert len(demo_messages(demos, 4)) == 6
