"""One classifier names an episode's fault: each kind of exception gets its status and party, the same for the
local runner and the Ray worker (``playbench.runner.outcome``).
"""

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from playbench.agents.reference import ReferenceAgent
from playbench.core.errors import InfraError, PlaybenchError, StopRun
from playbench.core.game import Game
from playbench.core.task import Task
from playbench.log.durable import StoreWriteError
from playbench.runner.outcome import classify, started_at
from playbench.runner.plan import EpisodeJob
from playbench.runner.ray_worker import EpisodeWorker
from playbench.runner.runner import play_episode


def _chained_os_error() -> RuntimeError:
    try:
        try:
            raise OSError(30, "Read-only file system", "/cache/game")
        except OSError as err:
            raise RuntimeError("could not write the game file") from err
    except RuntimeError as wrapped:
        return wrapped


ENVIRONMENT = "environment: cannot use /cache/game: Read-only file system (OSError)"


@pytest.mark.parametrize(("exc", "party", "status", "error"), [
    (InfraError("server answered 503 six times"), "agent", "infra-error", "server answered 503 six times"),
    (InfraError("the engine died"), "game", "infra-error", "the engine died"),
    (KeyError("move"), "agent", "agent-error", "KeyError: 'move'"),
    # the agent's own code failing on a file is its own bug: only the game's OSErrors blame the machine
    (OSError(30, "Read-only file system", "/cache/game"), "agent", "agent-error",
     "OSError: [Errno 30] Read-only file system: '/cache/game'"),
    (StoreWriteError("disk full"), "agent", "agent-error", "StoreWriteError: disk full"),
    (OSError(30, "Read-only file system", "/cache/game"), "game", "infra-error", ENVIRONMENT),
    (_chained_os_error(), "game", "infra-error", ENVIRONMENT),
    (ValueError("rod out of range"), "game", "game-error", "ValueError: rod out of range\n"),
])
def test_each_fault_kind_gets_its_status(exc: Exception, party: Any, status: str, error: str) -> None:
    fault = classify(exc, party)
    assert fault.status == status
    assert fault.error.startswith(error) if error.endswith("\n") else fault.error == error


@pytest.mark.parametrize(("exc", "party"), [
    (StopRun("credentials refused"), "agent"), (StopRun("credentials refused"), "game"),
    (StoreWriteError("disk full"), "game"),
])
def test_a_fault_of_the_whole_run_is_raised_again(exc: Exception, party: Any) -> None:
    with pytest.raises(type(exc)) as raised:
        classify(exc, party)
    assert raised.value is exc


class _DeepBug(Game):
    """A game whose step fails two calls deep: the record's traceback shows both of its frames."""

    def legal_actions(self) -> list[str]:
        return ["a"]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        return "start", {"manual": "", "score": 0.0}

    def step(self, action: str) -> Any:
        return self._move(action)

    def _move(self, action: str) -> Any:
        raise ValueError(f"no rod {action!r}")


def _job(make_game: Any) -> EpisodeJob:
    task = Task(id="test/outcome", description="", make_game=make_game)
    return EpisodeJob(task, task.params({}), 0, 0)


def test_a_game_error_shows_the_games_own_frames() -> None:
    record, _ = asyncio.run(play_episode(_job(lambda p, i: _DeepBug()), ReferenceAgent("random"), "random", None))
    assert record.status == "game-error"
    assert record.error is not None and record.error.startswith("ValueError: no rod 'a'\n")
    assert "in step" in record.error and "in _move" in record.error, record.error


def _failing_factory() -> Any:
    raise RuntimeError("no such strategy")


def test_the_ray_worker_classifies_like_the_local_runner() -> None:
    def kit(worker: int, workers: int) -> Any:
        return _failing_factory, None

    worker = EpisodeWorker(kit, 0, 1, [("smartplay/hanoi-3", {})], "broken", None)
    outcome = asyncio.run(worker.play("smartplay/hanoi-3", 0, 5))
    assert outcome[0] == "done"
    assert (outcome[1].status, outcome[1].error) == ("agent-error", "RuntimeError: no such strategy")


@pytest.mark.parametrize(("exc", "said"), [
    (PlaybenchError("OPENAI_API_KEY is not set"), "OPENAI_API_KEY is not set"),
    (ImportError("no module named nle"), "ImportError: no module named nle"),
])
def test_a_ray_worker_that_cannot_build_its_kit_says_why_in_one_line(exc: Exception, said: str) -> None:
    def kit(worker: int, workers: int) -> Any:
        raise exc

    assert asyncio.run(EpisodeWorker(kit, 0, 1, [], "naive", None).ready()) == said


def test_started_at_writes_each_second_as_datetime_does() -> None:
    # formatted once a second and shared: each second's text is still its own, to the second, in UTC
    for now in (0.0, 1_764_403_199.999, 1_764_403_200.0, 1_764_403_200.5, 1_764_403_199.2):
        expected = datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds")
        assert started_at(now) == expected
