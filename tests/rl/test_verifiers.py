"""playbench as a verifiers (v1) environment, played by verifiers' own evaluation loop against a loopback
OpenAI-compatible server: the same requests a ``playbench eval`` run sends to that server, and the same scores.

Both runs talk to the recording FakeServer, whose answers are a function of the request: equal requests get
equal answers, so equal request sets and equal scores mean the verifiers environment plays eval's episodes.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from helpers import only_run_dir, run_cli
from playbench.core.errors import PlaybenchError
from playbench.models import fakeserver
from playbench.models.fakeserver import FakeServer

vf = pytest.importorskip("verifiers.v1")
from playbench.rl.verifiers import PlaybenchEnv, PlaybenchTaskset, load_environment  # noqa: E402

SEED = 7
#: a task of every suite; the eval arguments and load_environment's
CASES: list[tuple[str, dict[str, Any]]] = [
    ("balrog/babyai/goto", {"max_steps": 5}),
    ("smartplay/hanoi-3", {"max_steps": 4}),
    ("mango/df", {}),
    ("grasp/energy", {}),
]
EPISODES = 2
NO_KEYS = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}


@pytest.fixture(scope="module", autouse=True)
def full_openai_answers():
    """verifiers validates answers against OpenAI's schema, which has ``created``; the FakeServer omits it."""
    plain = fakeserver.reply_body

    def with_created(fmt: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        reply = plain(fmt, *args, **kwargs)
        return {**reply, "created": 0} if fmt == "openai" else reply

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fakeserver, "reply_body", with_created)
        yield


def _dumps(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages, ensure_ascii=False)


def _eval(tmp: Path, task: str, params: dict[str, Any]) -> tuple[list[str], dict[int, dict[str, Any]]]:
    """A playbench eval run against a recording server: the requests it saw, and the run's records by index."""
    targs = [x for k, v in params.items() for x in ("-T", f"{k}={v}")]
    with FakeServer(record=True) as srv:
        res = run_cli("eval", task, *targs, "--episodes", str(EPISODES), "--seed", str(SEED), "--model",
                      "openai/fake", "--base-url", srv.url, "--quiet", "--log-dir", str(tmp), env=NO_KEYS)
        assert res.returncode == 0, res.stderr
        requests = sorted(_dumps(body["messages"]) for _, body in srv.received)
    rows = [json.loads(x) for x in (only_run_dir(tmp) / "episodes.jsonl").read_text().splitlines() if x.strip()]
    return requests, {r["index"]: r for r in rows}


async def _play(env: PlaybenchEnv, url: str) -> list[Any]:
    """verifiers' evaluation loop (what ``vf-eval`` runs in process): serving, then one slot per task."""
    ctx = vf.ModelContext(model="fake", client=vf.EvalClientConfig(base_url=f"{url}/v1", api_key_var="PB_NO_KEY"))
    async with env.serving():
        return await asyncio.gather(*(env.run_slot(slot, ctx) for task in env.taskset
                                      for slot in env.slots(task, 1)))


def _verifiers(task: str, params: dict[str, Any], **options: Any) -> tuple[list[str], list[Any]]:
    env = load_environment(task, episodes=EPISODES, seed=SEED, **params, **options)
    with FakeServer(record=True) as srv:
        episodes = asyncio.run(_play(env, srv.url))
        requests = sorted(_dumps(body["messages"]) for _, body in srv.received)
    return requests, episodes


@pytest.mark.parametrize(("task", "params"), CASES, ids=[c[0] for c in CASES])
def test_verifiers_loop_sends_evals_requests_and_scores_the_suites_metric(tmp_path, task, params) -> None:
    eval_requests, records = _eval(tmp_path, task, params)
    requests, episodes = _verifiers(task, params)
    assert requests == eval_requests and len(requests) >= EPISODES
    assert len(episodes) == EPISODES
    for episode in episodes:
        assert episode.ok, episode.errors
        (trace,) = episode.traces
        info = trace.info["playbench"]
        record = records[info["index"]]
        assert (episode.task.data.task, episode.task.data.seed) == (record["task"], record["seed"])
        assert info["status"] == record["status"] == "ok" and info["steps"] == record["steps"]
        assert trace.rewards["score"].score == record["score"]  # BALROG progression, SmartPlay score, ...
        assert set(trace.rewards) == {"score"}  # shaping is off by default
        assert trace.num_turns == record["steps"]


def test_full_history_is_one_growing_conversation_with_the_same_game() -> None:
    requests, episodes = _verifiers("balrog/babyai/goto", {"max_steps": 3}, history="full", shaping=True)
    by_length = sorted((json.loads(r) for r in requests), key=len)
    firsts = [r for r in by_length if len(r) == 2]  # BALROG's first request: instruction and observation
    assert len(firsts) == EPISODES
    for episode in episodes:
        assert episode.ok, episode.errors
        (trace,) = episode.traces
        assert trace.num_branches == 1  # each request extends the last: one conversation
        assert set(trace.rewards) == {"score", "game_reward"}
    for longer in by_length:
        if len(longer) > 2:  # the previous request, its answer, and the newest observation
            assert any(longer[: len(r)] == r and len(longer) == len(r) + 2 for r in by_length)
            assert longer[-2]["role"] == "assistant" and longer[-1]["content"].startswith("Current Observation")


def test_the_window_form_is_one_branch_per_rewritten_request() -> None:
    _, episodes = _verifiers("balrog/babyai/goto", {"max_steps": 3})
    for episode in episodes:
        (trace,) = episode.traces
        assert trace.num_turns == trace.num_branches == 3  # BALROG rewrites the prompt at every step


def test_rows_are_episodes_and_verifiers_finds_the_environment_by_its_id() -> None:
    from verifiers.v1.utils.loaders import environment_class, taskset_class

    env = load_environment(["mango/df", "grasp/energy"], episodes=3, seed=SEED)
    rows = [t.data for t in env.taskset]
    assert [(r.task, r.index) for r in rows] == [(t, i) for t in ("mango/df", "grasp/energy") for i in range(3)]
    from playbench.rl import ChatEnv

    assert rows[4].seed == ChatEnv("grasp/energy", index=1, seed=SEED).seed
    assert environment_class("playbench-rl") is PlaybenchEnv and taskset_class("playbench-rl") is PlaybenchTaskset


def test_bad_input_is_one_line() -> None:
    with pytest.raises(PlaybenchError, match="nosuch"):
        load_environment("nosuch/task")
    with pytest.raises(PlaybenchError, match="at least one task"):
        load_environment([])
