"""ChatEnv: GRPO groups (same episode, independent instances), one-step tasks, two requests per step,
stopping early, and the refusals of what cannot work.
"""

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from playbench import PlaybenchError
from playbench.core.seeding import episode_seed
from playbench.rl import ChatEnv, env_spec

HANOI = [f"Move the top disk of rod {a} to the top of rod {b}" for a, b in ("AB", "AC", "BA", "BC", "CA", "CB")]


def answer(member: int, step: int) -> str:
    """Member ``member`` of a group answers differently from the others (some answers illegal, some not actions)."""
    if (member + step) % 7 == 3:
        return "I will think about it."
    return HANOI[(member * 5 + step * (member + 1)) % len(HANOI)]


def record_json(env: ChatEnv) -> str:
    return json.dumps(env.record().model_dump(mode="json", exclude={"timing"}))


async def play(env: ChatEnv, member: int) -> list[str]:
    """Play to the end, yielding to the other members between steps; returns the requests' texts."""
    requests = [json.dumps(await env.areset())]
    step = 0
    while True:
        await asyncio.sleep(0)
        result = await env.astep(answer(member, step))
        step += 1
        if result.terminated or result.truncated:
            return requests
        requests.append(json.dumps(result.messages))


def test_a_group_starts_identical_and_plays_independently_under_concurrency() -> None:
    spec = env_spec("smartplay/hanoi-3", seed=5, model="mock/demo")
    group = [ChatEnv.from_spec(spec, index=2) for _ in range(8)]

    async def main() -> list[list[str]]:
        return list(await asyncio.gather(*(play(env, m) for m, env in enumerate(group))))

    played = asyncio.run(main())
    assert len({p[0] for p in played}) == 1  # same episode, same first request
    outcomes = {record_json(env) for env in group}
    assert len(outcomes) > 2  # different answers, different episodes
    assert all(env.seed == episode_seed(5, "smartplay/hanoi-3", 2) for env in group)
    for member, env in enumerate(group):  # each member alone, with its own answers, ends the same
        alone = ChatEnv("smartplay/hanoi-3", index=2, seed=5, model="mock/demo")
        assert asyncio.run(play(alone, member)) == played[member]
        assert record_json(alone) == record_json(env)


def test_round_robin_sync_steps_keep_instances_apart() -> None:
    envs = [ChatEnv("smartplay/hanoi-3", index=0, seed=1) for _ in range(3)]
    first = [env.reset() for env in envs]
    assert first[0] == first[1] == first[2]
    first[0][0]["content"] = "changed by the caller"  # the env hands out copies
    assert envs[0].reset()[0]["content"] != "changed by the caller"
    results = [env.step(HANOI[1]) for env in envs[:2]] + [envs[2].step(HANOI[0])]
    assert results[0].messages == results[1].messages != results[2].messages
    assert results[0].info["executed"] == HANOI[1] and results[0].info["valid"] is True
    for env in envs:
        env.close()


def test_a_one_step_question_is_one_turn() -> None:
    for task in ("mango/df", "grasp/energy"):
        env = ChatEnv(task, index=1, seed=0)
        messages = env.reset()
        assert messages and messages[-1]["role"] == "user" and not env.done
        assert env.request is not None and env.request[-1].content == messages[-1]["content"]
        result = env.step("I do not know.")
        assert result.terminated and not result.truncated and result.messages == [] and env.done
        assert result.info["status"] == "ok" and env.score == env.record().score is not None
        assert env.record().steps == 1 and env.record().model == "rl/policy"
        with pytest.raises(PlaybenchError, match="episode is over"):
            env.step("again")


def test_two_stage_makes_two_requests_per_game_step() -> None:
    env = ChatEnv("smartplay/rps-basic", index=0, seed=0, agent="two-stage")
    think = env.reset()
    result = env.step("Rock seems good.")
    assert not result.info["game_step"] and result.reward == 0.0 and not result.terminated
    assert result.messages[: len(think)] == think and result.messages[len(think)]["content"] == "Rock seems good."
    result = env.step("rock")
    assert result.info["game_step"] and result.info["step"] == 0 and result.info["valid"]
    assert len(env.steps()) == 1 and env.steps()[0].extra["stage1"] == "Rock seems good."
    env.close()


def test_the_step_limit_truncates() -> None:
    env = ChatEnv("smartplay/hanoi-3", seed=0, task_params={"max_steps": 2})
    env.reset()
    assert not env.step(HANOI[1]).truncated
    result = env.step(HANOI[0])
    assert result.truncated and not result.terminated and env.record().steps == 2


def test_close_stops_an_unfinished_episode_and_reset_starts_again() -> None:
    env = ChatEnv("smartplay/hanoi-3", seed=3)
    first = env.reset()
    env.step(HANOI[0])
    game = env._game
    env.close()
    assert env.request is None and not env.done
    with pytest.raises(PlaybenchError, match="no request is pending"):
        env.step(HANOI[0])
    assert env.reset() == first and env._game is not game
    assert env.steps() == []
    env.close()


def test_refusals() -> None:
    with pytest.raises(PlaybenchError, match="plays without a model"):
        ChatEnv("smartplay/hanoi-3", agent="random")
    with pytest.raises(PlaybenchError, match="one task"):
        ChatEnv("mango/benchmark")
    with pytest.raises(PlaybenchError, match="at least 0"):
        ChatEnv("smartplay/hanoi-3", index=-1)
    with pytest.raises(PlaybenchError, match="unknown parameter"):
        ChatEnv("smartplay/hanoi-3", task_params={"no_such": 1})
    with pytest.raises(PlaybenchError, match="would alter the official prompt"):
        ChatEnv("mango/df", agent="cot")
    with pytest.raises(PlaybenchError, match="mock provider"):
        ChatEnv("smartplay/hanoi-3", model_params={"invalid_rate": 0.5})
    env = ChatEnv("smartplay/hanoi-3")
    with pytest.raises(PlaybenchError, match="reset"):
        env.step("x")
    env.reset()
    with pytest.raises(PlaybenchError, match="as a str"):
        env.step(3)  # type: ignore[arg-type]

    async def inside() -> Any:
        return env.step("x")

    with pytest.raises(PlaybenchError, match="await areset"):
        asyncio.run(inside())
    env.close()


def test_an_alias_resolves_to_its_task() -> None:
    spec = env_spec("smartplay/hanoi-3")
    assert ChatEnv.from_spec(spec).task_id == "smartplay/hanoi-3"
    assert spec.config.tasks[0].params == spec.params.model_dump(mode="json")


def test_the_request_carries_the_images_bytes() -> None:
    env = ChatEnv("balrog/babyai/goto", seed=0, task_params={"images": True})
    messages = env.reset()
    assert env.request is not None
    image = env.request[-1].images[0]
    assert image.png.startswith(b"\x89PNG") and messages[-1]["images"] == [image.placeholder()]
    env.close()


def test_the_example_of_docs_rl_runs(repo_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (repo_root / "docs" / "rl.md").read_text()
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(block, "docs/rl.md", "exec"), {})  # noqa: S102  (our own documentation's example)
    printed = capsys.readouterr().out.split()
    assert printed == ["1.0", "ok"]  # the smallest disk reaches rod C, then the same move is illegal: score 1


def test_an_episode_stays_on_the_loop_that_started_it() -> None:
    env = ChatEnv("smartplay/hanoi-3")
    env.reset()  # on this thread's loop

    async def elsewhere() -> Any:
        return await env.areset()

    with pytest.raises(PlaybenchError, match="another event loop"):
        asyncio.run(elsewhere())
    assert env.step(HANOI[1]).info["valid"]  # still playing where it began
    env.close()


def test_a_game_that_cannot_start_ends_the_episode_at_reset() -> None:
    spec = env_spec("smartplay/hanoi-3")

    def broken(params: Any, index: int) -> Any:
        raise ValueError("no such level")

    env = ChatEnv.from_spec(dataclasses.replace(spec, task=dataclasses.replace(spec.task, make_game=broken)))
    assert env.reset() == [] and env.done and env.score is None
    assert env.record().status == "game-error" and "no such level" in (env.record().error or "")
