"""ChatEnv's lean steps: an episode is stepped by hand (no task, no loop pass) until it awaits more than its
answers, one channel model serves the
episodes of a spec on a loop (each still gets its own answers), and GRASP's copies share one instance.
"""

import asyncio
import dataclasses
import json
from typing import Any

from playbench.rl import ChatEnv, env_spec
from playbench.rl import chat_env as chat_env_module

HANOI = [f"Move the top disk of rod {a} to the top of rod {b}" for a, b in ("AB", "AC", "BA", "BC", "CA", "CB")]


class CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts its passes (each runs the callbacks ready at its start)."""

    passes = 0

    def _run_once(self) -> None:
        self.passes += 1
        super()._run_once()  # type: ignore[misc]  # asyncio's own loop pass


class ThreadPrepared:
    """A game prepared in a thread (as NetHack's is): its episode awaits more than its answers. Notes its close."""

    closed = 0

    def __init__(self, game: Any) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    async def prepare(self) -> None:
        await asyncio.to_thread(lambda: None)
        await self._game.prepare()

    def close(self) -> None:
        ThreadPrepared.closed += 1
        self._game.close()


def thread_prepared(spec: Any) -> Any:
    def make_game(params: Any, index: int) -> Any:
        return ThreadPrepared(spec.task.make_game(params, index))

    return dataclasses.replace(spec, task=dataclasses.replace(spec.task, make_game=make_game))


def play_counting(spec: Any, steps: int) -> tuple[list[int], list[Any]]:
    """Three episodes of ``spec`` round robin on a counting loop: the loop passes of each step, and what it gave."""
    loop = CountingLoop()
    previous = getattr(chat_env_module._threads, "loop", None)
    chat_env_module._threads.loop = loop  # this thread's loop for the synchronous API
    passes: list[int] = []
    seen: list[Any] = []
    try:
        envs = [ChatEnv.from_spec(spec, 0) for _ in range(3)]
        seen += [env.reset() for env in envs]
        for step in range(steps):
            for env in envs:  # round robin: the other episodes wait for their answers meanwhile
                before = loop.passes
                result = env.step(HANOI[step % len(HANOI)])
                passes.append(loop.passes - before)
                seen.append((result.messages, result.reward, result.info["valid"]))
        for env in envs:
            env.close()
    finally:
        chat_env_module._threads.loop = previous
        loop.close()
    return passes, seen


def test_a_synchronous_step_runs_no_loop_pass_unless_the_episode_awaits_more_than_its_answers() -> None:
    spec = env_spec("smartplay/hanoi-3", seed=1)
    passes, by_hand = play_counting(spec, 4)
    assert passes == [0] * 12  # stepped by hand: no task, no pass of the loop
    ThreadPrepared.closed = 0
    passes, by_task = play_counting(thread_prepared(spec), 4)
    assert passes == [1] * 12  # a task took over at the prepare's await: one pass a step
    assert by_task == by_hand and by_hand[3][0]
    assert ThreadPrepared.closed == 3  # close() stopped each unfinished episode: its game was closed


def test_close_of_an_episode_stepped_by_hand_closes_its_game_and_async_steps_agree() -> None:
    spec = env_spec("smartplay/hanoi-3", seed=4)
    opened: list[Any] = []

    def make_game(params: Any, index: int) -> Any:
        opened.append(ThreadPrepared(spec.task.make_game(params, index)))
        opened[-1].prepare = opened[-1]._game.prepare  # prepared at once: the episode stays stepped by hand
        return opened[-1]

    watched = dataclasses.replace(spec, task=dataclasses.replace(spec.task, make_game=make_game))
    ThreadPrepared.closed = 0
    env = ChatEnv.from_spec(watched, 2)
    first = env.reset()
    assert env._episode is not None and not isinstance(env._episode, asyncio.Task)  # no task made
    sync = [env.step(move).messages for move in HANOI[:3]]
    env.close()
    assert ThreadPrepared.closed == 1 and env.request is None and not env.done

    async def play(spec: Any) -> list[Any]:
        other = ChatEnv.from_spec(spec, 2)
        out = [await other.areset()] + [(await other.astep(move)).messages for move in HANOI[:3]]
        await other.aclose()
        return out

    assert asyncio.run(play(watched)) == [first, *sync] == asyncio.run(play(thread_prepared(spec)))
    assert ThreadPrepared.closed == 3


def record_json(env: ChatEnv) -> str:
    return json.dumps(env.record().model_dump(mode="json", exclude={"timing"}))


def test_one_channel_model_per_loop_and_each_episode_its_own_answers() -> None:
    spec = env_spec("smartplay/hanoi-3", seed=2)
    group = [ChatEnv.from_spec(spec, index=1) for _ in range(4)]

    async def play(env: ChatEnv, member: int) -> list[Any]:
        await env.areset()
        for step in range(6):
            await asyncio.sleep(0)  # the members' requests interleave
            await env.astep(HANOI[(member + step * (member + 1)) % len(HANOI)])
        return env.steps()

    async def main() -> tuple[list[list[Any]], Any]:
        played = await asyncio.gather(*(play(env, m) for m, env in enumerate(group)))
        return list(played), spec.channel.model(spec, asyncio.get_running_loop())

    played, model = asyncio.run(main())
    assert model.stats.calls == 4 * 7  # every member's requests went through the one model of that loop
    for member, env in enumerate(group):  # alone, with a spec of its own, each member plays the same episode
        alone = ChatEnv("smartplay/hanoi-3", index=1, seed=2)
        alone.reset()
        for step in range(6):
            alone.step(HANOI[(member + step * (member + 1)) % len(HANOI)])
        assert [s.raw_output for s in alone.steps()] == [s.raw_output for s in played[member]]
        assert [s.model_dump(exclude={"timing"}) for s in alone.steps()] == \
            [s.model_dump(exclude={"timing"}) for s in played[member]]
        alone.close()
        env.close()
    assert spec.channel.model(spec, asyncio.new_event_loop()) is not model  # another loop, another model


def test_grasp_copies_share_one_instance_and_play_alike() -> None:
    from playbench.suites.grasp.instances import KEPT_INSTANCES, _kept, make_instance

    spec = env_spec("grasp/energy", seed=4)
    first, second = ChatEnv.from_spec(spec, 5), ChatEnv.from_spec(spec, 5)
    assert first.reset() == second.reset()
    assert first._game.inst is second._game.inst  # made once for the group
    fresh = _kept.__wrapped__(spec.params, 5, first.seed)  # generated anew, not kept
    assert fresh == first._game.inst
    assert make_instance(spec.params, 6, first.seed) is not first._game.inst
    assert _kept.cache_info().maxsize == KEPT_INSTANCES
    first.step("UP, UP")
    second.step("up")
    assert first.record().instance == second.record().instance


def play_through(env: ChatEnv, answers: list[str]) -> list[Any]:
    """Every step's result (messages, reward, flags, info) until the episode ends (answers taken in turn)."""
    messages = env.reset()
    results: list[Any] = [messages]
    while messages:
        results.append(env.step(answers[(len(results) - 1) % len(answers)]))
        messages = results[-1].messages
    return results


def test_keep_steps_false_gives_the_same_results_and_record_and_keeps_no_steps() -> None:
    from playbench.core.errors import PlaybenchError

    cases = [("smartplay/hanoi-3", {"max_steps": 12}, HANOI), ("balrog/babyai/goto", {"max_steps": 9},
             ["turn left", "go forward", "nonsense"]), ("grasp/energy-interactive", {}, ["up", "left", "right"])]
    for task, params, answers in cases:
        spec = env_spec(task, seed=3, task_params=params)
        kept, lean = ChatEnv.from_spec(spec, 2), ChatEnv.from_spec(spec, 2, keep_steps=False)
        assert play_through(lean, answers) == play_through(kept, answers)  # every reward, flag and info
        assert record_json(lean) == record_json(kept) and lean.score == kept.score
        assert len(kept.steps()) > 5 and lean._steps == []  # nothing of the played steps is held
        for refused in (lean.steps, lean.rollout):
            try:
                refused()
            except PlaybenchError as exc:
                assert "keep_steps=False" in str(exc)
            else:
                raise AssertionError(f"{task}: {refused.__name__} should refuse with keep_steps=False")
    try:
        ChatEnv.from_spec(spec, 0, keep_steps=0)  # type: ignore[arg-type]
    except PlaybenchError as exc:
        assert "keep_steps" in str(exc)
    else:
        raise AssertionError("keep_steps=0 should be refused")



def test_keep_steps_false_leaves_no_record_cached_on_its_history_and_gives_the_callers_own_dicts() -> None:
    spec = env_spec("smartplay/hanoi-3", seed=3, task_params={"max_steps": 12})
    kept, lean = ChatEnv.from_spec(spec, 1), ChatEnv.from_spec(spec, 1, keep_steps=False)
    kept.reset()
    mine = lean.reset()
    for answer in HANOI[:4]:
        for message in mine:
            message["content"] = "changed by the caller"  # its own dicts: nothing the episode holds changes
        mine, *_ = lean.step(answer)
        assert mine == kept.step(answer).messages and len(mine) > 3
        assert lean.request is not None and all(m._record is None for m in lean.request)  # one dict a message: the caller's
    # Its step records hold the history's cached records, shared (a message new in the pending request gets its
    # record once it is answered).
    sent = kept.steps()[-1].messages
    assert kept.request is not None and sent is not None
    cached = [m._record for m in kept.request if m._record is not None]
    assert len(cached) > 3 and all(any(r is s for s in sent) for r in cached)

def test_an_ended_episode_holds_neither_its_last_request_nor_its_game() -> None:
    env = ChatEnv("grasp/energy", index=1, seed=5)
    env.reset()
    assert env._request is not None and env._game is not None
    result = env.step("up")
    assert result.terminated or result.truncated
    assert result.info["progress"] is not None  # read from the game before it was let go
    assert env._request is None and env._game is None and env.request is None and env.wire_messages() == []



def test_an_ended_lean_episode_lets_go_of_its_game_and_agent_at_once_and_still_answers() -> None:
    import weakref

    env = ChatEnv("grasp/energy-interactive", index=1, seed=5, keep_steps=False)
    messages = env.reset()
    assert env._coro is not None
    game, agent = weakref.ref(env._game), weakref.ref(env._coro.cr_frame.f_locals["agent"])  # its history window
    while messages:
        messages, *_ = env.step("UP")
    assert game() is None and agent() is None  # freed when the episode ended (no collection needed)
    assert env.done and env.record().status == "ok" and env.score == env.record().score and env.request is None
    held = weakref.ref(env)  # a trainer may hold its environments weakly (the env is slotted)
    del env
    assert held() is None

def test_grasp_instance_kept_or_made_anew_plays_the_same_records() -> None:
    from playbench.suites.grasp.instances import KEPT_INSTANCES, _kept

    spec = env_spec("grasp/energy", seed=6)

    def played(index: int) -> tuple[str, str]:
        env = ChatEnv.from_spec(spec, index)
        env.reset()
        env.step("UP, LEFT, UP")
        return record_json(env), json.dumps([s.model_dump(mode="json", exclude={"timing"}) for s in env.steps()])

    _kept.cache_clear()
    first = played(7)  # made, then kept
    assert _kept.cache_info().currsize == 1
    assert played(7) == first and _kept.cache_info().hits >= 1  # the kept instance
    _kept.cache_clear()
    assert played(7) == first  # made anew
    for index in range(KEPT_INSTANCES + 5):  # bounded: the oldest are let go
        _kept(spec.params, index, 0)
    assert _kept.cache_info().currsize == KEPT_INSTANCES


def test_a_groups_copies_share_their_checked_job_and_other_indices_are_checked_again() -> None:
    from playbench.core.bounds import MAX_EPISODES
    from playbench.core.errors import PlaybenchError
    from playbench.core.seeding import episode_seed

    spec = env_spec("smartplay/hanoi-3", seed=8)
    first, second = ChatEnv.from_spec(spec, 4), ChatEnv.from_spec(spec, 4)
    assert first._job is second._job and first.seed == second.seed == episode_seed(8, spec.task_id, 4)
    assert ChatEnv.from_spec(spec, 5).seed == episode_seed(8, spec.task_id, 5)
    assert ChatEnv.from_spec(spec, 4)._job is not first._job  # the last index only
    try:
        ChatEnv.from_spec(spec, MAX_EPISODES)
    except PlaybenchError as exc:
        assert "at most" in str(exc)
    else:
        raise AssertionError("an index past what a run plays should be refused")


def _cyclic_garbage(play: Any) -> int:
    """Objects that only the cyclic garbage collector could free after ``play()``, collection paused meanwhile."""
    import gc

    gc.collect()
    gc.disable()
    try:
        play()
        return gc.collect()
    finally:
        gc.enable()


def test_an_episode_leaves_no_reference_cycle_however_it_is_played_or_stopped() -> None:
    spec = env_spec("smartplay/hanoi-3", seed=2, task_params={"max_steps": 3})

    def synchronous() -> None:
        for index in range(3):
            env = ChatEnv.from_spec(spec, index)
            messages = env.reset()
            while messages:
                messages, *_ = env.step(HANOI[0])
        stopped = ChatEnv.from_spec(spec, 0)
        stopped.reset()
        stopped.close()

    def asynchronous() -> None:
        async def play() -> None:
            env = ChatEnv.from_spec(spec, 1)
            messages = await env.areset()
            while messages:
                messages, *_ = await env.astep(HANOI[1])
            stopped = ChatEnv.from_spec(thread_prepared(spec), 0)  # its episode goes on as a task of the loop
            await stopped.areset()
            await stopped.aclose()

        asyncio.run(play())

    synchronous()  # warm: what the first episode makes once (the thread's loop, caches) is not counted
    assert _cyclic_garbage(synchronous) == 0  # an ended episode's context held its ChatEnv: a cycle each
    asynchronous()
    assert _cyclic_garbage(asynchronous) == 0


def test_the_channels_token_count_is_the_mock_providers_and_a_record_copy_is_the_record() -> None:
    from playbench.models.providers.mock import prompt_tokens
    from playbench.models.types import Image, Message
    from playbench.rl.channel import request_tokens

    texts = ["", "abc", "abcd", "x" * 1001, "é" * 7]
    messages = [Message("user" if k % 2 else "assistant", text) for k, text in enumerate(texts)]
    assert request_tokens(messages) == prompt_tokens(messages) == sum(len(t) // 4 + 1 for t in texts)
    with_image = [*messages, Message("user", "look", (Image(b"\x89PNG fake", 2, 2),))]
    assert request_tokens(with_image) == prompt_tokens(with_image)
    assert request_tokens(with_image[::-1]) == prompt_tokens(with_image[::-1])  # an image first, or last

    kept = messages[1].record()
    copy = messages[1].record_copy()
    assert copy == kept and copy is not kept and list(copy) == list(kept)
    assert messages[1].record() is kept  # the cached record stays the message's
    messages[1].parts = True
    assert messages[1].record_copy() == {"role": "user", "content": "abc", "parts": True} == messages[1].record()
