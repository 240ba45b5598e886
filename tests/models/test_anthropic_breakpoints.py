"""Where Anthropic requests carry cache breakpoints, on the requests BALROG, SmartPlay and MANGO agents send.

The prompts are those of mock runs (the agents' real requests); the bodies are built by the Anthropic
provider's request builder, then replayed through the simulated prefix cache to show what is read back.
Built outside an episode, every request marks its history; inside one (its ledger current, as in a run),
only a request that extends the episode's previous one does.
"""

import asyncio
import copy
import gc
import json
from pathlib import Path
from typing import Any

import pytest

import playbench
from playbench.core.ledger import CURRENT_EPISODE, EpisodeLedger
from playbench.log import read_run
from playbench.models.prefixcache import PromptCache, request_blocks
from playbench.models.providers.anthropic import AnthropicProvider
from playbench.models.tokens import count_tokens
from playbench.models.types import GenerateConfig, Message

PROVIDER = AnthropicProvider("claude-3-5-haiku-20241022", "http://127.0.0.1:9", None)
MARK = {"type": "ephemeral"}


def requests_of(tmp: Path, task: str, agent: str, **params: Any) -> list[list[Message]]:
    """Every request of one mock-played episode, in order, as the agent built it."""
    result = playbench.eval(task, model="mock/x", agent=agent, episodes=1, task_params=params, log_dir=str(tmp))
    run = read_run(result.path)
    out = []
    for record in run.episodes():
        for step in run.read_trajectory(record):
            if step.messages:
                out.append([Message(m["role"], m["content"]) for m in step.messages])
    return out


def body(messages: list[Message], cache: bool = True) -> dict[str, Any]:
    return PROVIDER.request(messages, GenerateConfig(cache_prompt=None if cache else False))[2]


def marks(sent: dict[str, Any]) -> list[tuple[int, int]]:
    """(turn, block) of each breakpoint in the messages; turn -1 is the system text."""
    out = [(-1, 0)] if isinstance(sent.get("system"), list) and "cache_control" in sent["system"][0] else []
    for t, turn in enumerate(sent["messages"]):
        out += [(t, b) for b, block in enumerate(turn["content"]) if "cache_control" in block]
    return out


def unmarked(sent: dict[str, Any]) -> dict[str, Any]:
    """The body without its breakpoints, the system as text: what the model reads."""
    out = copy.deepcopy(sent)
    if isinstance(out.get("system"), list):
        out["system"] = "".join(block["text"] for block in out["system"])
    for turn in out["messages"]:
        for block in turn["content"]:
            block.pop("cache_control", None)
    return out


def check_common(requests: list[list[Message]]) -> list[dict[str, Any]]:
    """Breakpoints change nothing the model reads, stay within the API's four, never mark the new turn."""
    bodies = [body(r) for r in requests]
    for messages, sent in zip(requests, bodies, strict=True):
        assert unmarked(sent) == body(messages, cache=False)
        assert "cache_control" not in json.dumps(body(messages, cache=False))
        assert 1 <= len(marks(sent)) <= 4
        last = sent["messages"][-1]
        assert last["role"] == "user" and "cache_control" not in last["content"][-1]
        for value in (b.get("cache_control") for t in sent["messages"] for b in t["content"]):
            assert value in (None, MARK)
    return bodies


def test_balrog_marks_the_instruction_and_the_history_before_the_new_observation(tmp_path: Path) -> None:
    requests = requests_of(tmp_path, "balrog/babyai/goto", "naive", max_steps=22)
    assert len(requests) == 22  # past BALROG's 16-step window
    bodies = check_common(requests)
    first = bodies[0]["messages"]
    # step 0: the instruction and the first observation, merged into one user turn: the instruction is marked
    assert "system" not in bodies[0] and marks(bodies[0]) == [(0, 0)] and len(first[0]["content"]) == 2
    for sent in bodies[1:]:
        turns = sent["messages"]
        # the instruction turn, and the answer just before the new observation
        assert marks(sent) == [(0, 0), (len(turns) - 2, 0)] and turns[-2]["role"] == "assistant"
    # replayed through a prefix cache: inside the window each request reads what the one before wrote;
    # once the window slides, only the instruction survives
    cache = PromptCache(explicit=True)
    used = [cache.use(request_blocks("anthropic", sent)) for sent in bodies]
    instruction = cache.count(requests[0][0].content)
    reads = [read for _, read, _ in used]
    assert reads[0] == 0 and all(read > instruction for read in reads[2:16])
    assert reads[-1] == instruction and all(read >= instruction for read in reads[1:])


def test_smartplay_two_stage_reads_the_first_stage_back_in_the_second(tmp_path: Path) -> None:
    steps = requests_of(tmp_path, "smartplay/hanoi-3", "two-stage", max_steps=3)
    requests = []
    for second in steps:  # a step records its last request; the first stage's is that one up to its question
        question = next(i for i, m in enumerate(second) if m.role == "user")
        requests += [second[: question + 1], second]
    assert len(requests) == 6
    bodies = check_common(requests)
    for first, second in zip(bodies[::2], bodies[1::2], strict=True):
        # stage one: the system text (role, manual, history, observation) is the stable part
        assert marks(first) == [(-1, 0)] and len(first["messages"]) == 1
        # stage two: the system text, the first question and the first answer
        assert marks(second) == [(-1, 0), (0, 0), (1, 0)]
        assert [t["role"] for t in second["messages"]] == ["user", "assistant", "user"]
    cache = PromptCache(explicit=True)
    used = [cache.use(request_blocks("anthropic", sent)) for sent in bodies]
    system = cache.count(bodies[0]["system"][0]["text"])
    assert used[1][1] == system  # the second stage reads the system text the first one wrote


def test_mango_one_turn_prompts_mark_only_the_system_text(tmp_path: Path) -> None:
    requests = requests_of(tmp_path, "mango/df", "naive")
    assert len(requests) == 1 and [m.role for m in requests[0]] == ["system", "user"]
    bodies = check_common(requests)
    # a breakpoint on the question itself would be a paid cache write that nothing reads
    assert marks(bodies[0]) == [(-1, 0)]


@pytest.mark.parametrize("roles,expected", [
    (["user"], []),
    (["system", "system", "user"], [(-1, 0)]),
    (["user", "assistant", "user"], [(0, 0), (1, 0)]),
    (["system", "user", "user"], [(-1, 0), (0, 0)]),
    (["user", "assistant", "user", "assistant"], [(0, 0), (1, 0)]),
])
def test_breakpoint_rules_on_small_conversations(roles: list[str], expected: list[tuple[int, int]]) -> None:
    messages = [Message(role, f"text {i}") for i, role in enumerate(roles)]
    assert marks(body(messages)) == expected
    assert marks(body(messages, cache=False)) == []


# -- in an episode: the history breakpoint only where the episode's previous request is extended --------------

def in_episode(requests: list[list[Message]], provider: AnthropicProvider | None = None,
               cache: bool = True) -> list[dict[str, Any]]:
    """The bodies of one episode's requests, built in order with the episode's ledger current (as in a run)."""
    provider = provider or AnthropicProvider("claude-3-5-haiku-20241022", "http://127.0.0.1:9", None)
    current = CURRENT_EPISODE.set(EpisodeLedger("t", 0))
    try:
        return [provider.request(r, GenerateConfig(cache_prompt=None if cache else False))[2] for r in requests]
    finally:
        CURRENT_EPISODE.reset(current)


def extends(before: list[Message], after: list[Message]) -> bool:
    """Whether ``after`` starts with ``before`` up to its last message (the new observation)."""
    return after[: len(before) - 1] == before[:-1]


def input_cost(bodies: list[dict[str, Any]]) -> float:
    """The input bill with Anthropic's prompt cache over the bill without it (as benchmarks/prefix_stability.py)."""
    cache = PromptCache(explicit=True, minimum=1024, count=count_tokens)
    used = [cache.use(request_blocks("anthropic", sent)) for sent in bodies]
    total, read, written = (sum(u[i] for u in used) for i in range(3))
    return (total - read - written + 0.1 * read + 1.25 * written) / total


def test_balrog_episode_keeps_only_the_instruction_breakpoint_once_the_window_slides(tmp_path: Path) -> None:
    requests = requests_of(tmp_path, "balrog/babyai/goto", "naive", max_steps=22)
    bodies = in_episode(requests)
    slid = [i for i in range(1, len(requests)) if not extends(requests[i - 1], requests[i])]
    assert slid == list(range(16, 22))  # BALROG's 16-step window: from then on the oldest turn goes each step
    for i, (messages, sent) in enumerate(zip(requests, bodies, strict=True)):
        assert unmarked(sent) == body(messages, cache=False)  # the model reads the same text either way
        if i == 0 or i in slid:  # the first request, and every one after the slide: the instruction only
            assert marks(sent) == [(0, 0)]
        else:  # the conversation grows: the history before the new observation is marked too
            assert marks(sent) == [(0, 0), (len(sent["messages"]) - 2, 0)]
    # outside an episode nothing is known of the step before: every request marks its history
    assert marks(body(requests[-1])) == [(0, 0), (len(bodies[-1]["messages"]) - 2, 0)]


def test_balrog_cached_bill_is_no_more_than_the_uncached_one(tmp_path: Path) -> None:
    requests = requests_of(tmp_path, "balrog/crafter/default", "naive", max_steps=40)
    assert len(requests) == 40
    # marking every history (no episode known) writes at 1.25 times a prefix the next step does not start with
    assert input_cost([body(r) for r in requests]) > 1.05
    assert input_cost(in_episode(requests)) <= 1.0


def test_smartplay_episode_marks_the_history_while_the_conversation_extends(tmp_path: Path) -> None:
    requests = requests_of(tmp_path, "smartplay/hanoi-3", "naive", max_steps=12)
    bodies = in_episode(requests)
    assert all(extends(a, b) for a, b in zip(requests, requests[1:], strict=False))
    assert marks(bodies[0]) == [(0, 0)]
    for sent in bodies[1:]:
        assert marks(sent) == [(0, 0), (len(sent["messages"]) - 2, 0)]
    cache = PromptCache(explicit=True)
    reads = [cache.use(request_blocks("anthropic", sent))[1] for sent in bodies]
    assert all(b > a > 0 for a, b in zip(reads[1:], reads[2:], strict=False))  # each reads the history before
    # two-stage: the second question extends the first request, so its history (question, answer) is marked
    steps = requests_of(tmp_path / "two", "smartplay/hanoi-3", "two-stage", max_steps=3)
    staged = []
    for second in steps:
        staged += [second[: next(i for i, m in enumerate(second) if m.role == "user") + 1], second]
    sent = in_episode(staged)
    assert [marks(b) for b in sent] == [[(-1, 0)], [(-1, 0), (0, 0), (1, 0)]] * 3


def test_concurrent_episodes_do_not_see_each_other(tmp_path: Path) -> None:
    balrog = requests_of(tmp_path / "b", "balrog/babyai/goto", "naive", max_steps=20)
    smartplay = requests_of(tmp_path / "s", "smartplay/hanoi-3", "naive", max_steps=20)
    alone = [in_episode(balrog), in_episode(smartplay)]
    provider = AnthropicProvider("claude-3-5-haiku-20241022", "http://127.0.0.1:9", None)

    async def play(requests: list[list[Message]], index: int) -> list[dict[str, Any]]:
        CURRENT_EPISODE.set(EpisodeLedger("t", index))  # each task's own context, as the runner does
        out = []
        for r in requests:
            out.append(provider.request(r, GenerateConfig())[2])
            await asyncio.sleep(0)  # the other episode's request comes in between
        return out

    async def both() -> list[list[dict[str, Any]]]:
        return list(await asyncio.gather(play(balrog, 0), play(smartplay, 1)))

    assert asyncio.run(both()) == alone
    gc.collect()
    assert len(provider.episodes) == 0  # what an episode remembered goes with its ledger


def test_a_retry_gets_the_same_breakpoints_and_cache_prompt_false_remembers_nothing(tmp_path: Path) -> None:
    requests = requests_of(tmp_path, "balrog/babyai/goto", "naive", max_steps=18)
    once = in_episode(requests)
    twice = in_episode([r for r in requests for _ in range(2)])  # every request sent a second time
    assert twice[::2] == once and twice[1::2] == once
    provider = AnthropicProvider("claude-3-5-haiku-20241022", "http://127.0.0.1:9", None)
    current = CURRENT_EPISODE.set(EpisodeLedger("t", 0))
    try:
        bare = [provider.request(r, GenerateConfig(cache_prompt=False))[2] for r in requests]
        assert all(marks(sent) == [] for sent in bare) and len(provider.episodes) == 0
    finally:
        CURRENT_EPISODE.reset(current)
