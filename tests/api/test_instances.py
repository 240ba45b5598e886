"""``eval --instances SOURCE``: a run plays exactly the source's instances (a BALROG leaderboard row, a playbench
run, a file of ``TASK SEED`` lines), in its order, the first K with ``--episodes K``; what it cannot play is
refused in one line; resume keeps them and verify re-plays them."""

import json
import os
from pathlib import Path

import pytest

import playbench
from helpers import run_cli
from playbench.core.errors import PlaybenchError
from playbench.log import read_run

ROW = "balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct"
BABYAI = ("goto", "open")


def _seeds(run: Path) -> dict[str, list[int]]:
    """Each task's recorded seeds, in index order."""
    records = sorted(read_run(run).episodes(), key=lambda r: (r.task, r.index))
    out: dict[str, list[int]] = {}
    for record in records:
        out.setdefault(record.task, []).append(record.seed)
    return out


def _row_episodes(row: Path, kind: str) -> list[dict]:
    """A leaderboard row's BabyAI episode files of one kind, in episode order."""
    folder = row / "babyai" / "BabyAI-MixedTrainLocal-v0" / kind / "BabyAI-MixedTrainLocal-v0"
    return [json.loads(path.read_text()) for path in sorted(folder.glob(f"{kind}_run_*.json"))]


def test_a_leaderboard_row_plays_its_babyai_seeds_in_order(shared_data: Path, tmp_path: Path) -> None:
    row = shared_data / ROW
    result = playbench.eval([f"balrog/babyai/{kind}" for kind in BABYAI], agent="random", instances=str(row),
                            log_dir=tmp_path)
    published = {f"balrog/babyai/{kind}": _row_episodes(row, kind) for kind in BABYAI}
    assert _seeds(result.path) == {task: [e["seed"] for e in eps] for task, eps in published.items()}
    for record in read_run(result.path).episodes():  # the same level: BALROG's mission for that seed
        assert record.metrics["mission"] == published[record.task][record.index]["mission"]
    assert read_run(result.path).meta.settings.instances == str(row)
    assert playbench.verify(result.path).ok

    first = playbench.eval("balrog/babyai/goto", agent="random", instances=row, episodes=3, log_dir=tmp_path / "3")
    assert _seeds(first.path) == {"balrog/babyai/goto": [e["seed"] for e in published["balrog/babyai/goto"][:3]]}


def test_a_leaderboard_row_plays_its_baba_levels(shared_data: Path, tmp_path: Path) -> None:
    """Baba Is AI: the same level, so the same plan to win (the episode file's ``target_plan``)."""
    name = "two_room-break_stop-make_win"
    folder = shared_data / ROW / "babaisai" / "env" / name / "env"
    published = [json.loads(path.read_text()) for path in sorted(folder.glob(f"{name}_run_*.json"))]
    result = playbench.eval(f"balrog/babaisai/{name}", agent="random", instances=shared_data / ROW,
                            task_params={"max_steps": 2}, log_dir=tmp_path)
    records = sorted(read_run(result.path).episodes(), key=lambda r: r.index)
    assert [(r.seed, r.metrics["target_plan"]) for r in records] == [(e["seed"], e["target_plan"]) for e in published]


def test_a_leaderboard_row_refuses_what_playbench_cannot_play_again(shared_data: Path, tmp_path: Path) -> None:
    """Boxoban's level came from os.listdir order (the others: ``tests/balrog/test_leaderboard_instances.py``)."""
    row = shared_data / ROW
    for task, why in {"balrog/minihack/boxoban-hard": "os.listdir"}.items():
        with pytest.raises(PlaybenchError, match=f"{task}: playbench cannot play .* again: .*{why}"):
            playbench.eval(task, agent="random", instances=row, log_dir=tmp_path)
    with pytest.raises(PlaybenchError, match="holds 10 instance"):
        playbench.eval("balrog/babyai/goto", agent="random", instances=row, episodes=11, log_dir=tmp_path)
    assert not any(tmp_path.iterdir())


def _submission(folder: Path, episodes: dict[str, list[tuple[int, int]]]) -> Path:
    """A BALROG folder of episode files only: ``{"env/task-name": [(index, seed), ...]}``."""
    for where, pairs in episodes.items():
        env, _, task = where.partition("/")
        (folder / env).mkdir(parents=True, exist_ok=True)
        (folder / env / f"{env}_summary.json").write_text("{}")
        for index, seed in pairs:
            path = folder / env / task / f"{task}_run_{index:02d}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"task": task, "seed": seed, "progression": 0.0}))
    return folder


def test_a_balrog_folder_is_read_in_episode_order_through_its_format(tmp_path: Path) -> None:
    """Indexes 10 and 2: the order is the episodes', not the file names' (``_run_10`` sorts before ``_run_2``)."""
    folder = _submission(tmp_path / "row", {"babaisai/env/goto_win": [(10, 30), (2, 20), (0, 10)],
                                            "crafter/default": [(0, 5)]})
    result = playbench.eval("balrog/babaisai/goto_win", agent="random", instances=folder, log_dir=tmp_path / "runs",
                            task_params={"max_steps": 3})
    assert _seeds(result.path) == {"balrog/babaisai/goto_win": [10, 20, 30]}
    with pytest.raises(PlaybenchError, match="crafter/default: .*process_num"):
        playbench.eval("balrog/crafter/default", agent="random", instances=folder, log_dir=tmp_path / "runs")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A playbench run of two tasks, three episodes each, from base seed 5."""
    log = tmp_path_factory.mktemp("source")
    return playbench.eval(["smartplay/hanoi-3", "balrog/babyai/goto"], agent="random", episodes=3, seed=5,
                          log_dir=log).path


def test_a_playbench_run_gives_its_schedule(source: Path, tmp_path: Path) -> None:
    played = playbench.eval("smartplay/hanoi-3", agent="random", instances=str(source), log_dir=tmp_path)
    assert _seeds(played.path) == {"smartplay/hanoi-3": _seeds(source)["smartplay/hanoi-3"]}
    # a run of given seeds is a source too: its seeds, not its base seed's
    again = playbench.eval("Hanoi3Disk-v0", agent="random", instances=str(played.path), episodes=2,
                           log_dir=tmp_path / "again")
    assert _seeds(again.path) == {"smartplay/hanoi-3": _seeds(source)["smartplay/hanoi-3"][:2]}
    with pytest.raises(PlaybenchError, match="smartplay/hanoi-4: --instances .* holds no instance of it"):
        playbench.eval("smartplay/hanoi-4", agent="random", instances=str(source), log_dir=tmp_path)


def test_a_file_of_lines_with_a_model_resumes_and_verifies(tmp_path: Path) -> None:
    lines = tmp_path / "instances.txt"
    lines.write_text("# task seed\nsmartplay/hanoi-3 11\n\nHanoi3Disk-v0,12\nbalrog/babyai/goto\t4294967295\n"
                     "smartplay/hanoi-3 , 0\n")
    asked = {"model": "mock/demo", "instances": str(lines), "task_params": {"max_steps": 4}, "log_dir": tmp_path}
    result = playbench.eval(["smartplay/hanoi-3", "balrog/babyai/goto"], **asked)
    want = {"smartplay/hanoi-3": [11, 12, 0], "balrog/babyai/goto": [4294967295]}
    assert _seeds(result.path) == want

    run = result.path  # the last two records lost: a resume plays them again with their instances' seeds
    kept = (run / "episodes.jsonl").read_text().splitlines(keepends=True)[:2]
    (run / "episodes.jsonl").write_text("".join(kept))
    lines.write_text("smartplay/hanoi-3 99\n")  # the source changed since: a resume does not read it
    resumed = playbench.eval(resume=run)
    assert resumed.complete and _seeds(run) == want
    assert playbench.eval(resume=run, instances=str(lines)).complete  # given again as recorded: accepted
    with pytest.raises(PlaybenchError, match="--instances would change the results"):
        playbench.eval(resume=run, instances=str(tmp_path / "other.txt"))
    assert playbench.verify(run).ok


@pytest.mark.parametrize(("text", "why"), [
    (b"smartplay/hanoi-3\n", r":1: not a TASK SEED line"),
    (b"smartplay/hanoi-3 1\nsmartplay/hanoi-3 -4\n", r":2: not a TASK SEED line"),
    (b"[" * 100_000 + b"\n", r":1: not a TASK SEED line: '\[\[\["),
    (b"smartplay/hanoi-3 1\n\xff\xfe\x00\x01\n", r":2: not UTF-8 text"),
    (b"smartplay/hanoi-3 99999999999\n", r"not a 32-bit one"),
    (b"no/such-task 1\n", r":1: unknown task 'no/such-task'"),
    (b"# nothing\n\n", r"no TASK SEED line"),
])
def test_a_bad_file_is_refused_naming_its_line(tmp_path: Path, text: bytes, why: str) -> None:
    lines = tmp_path / "instances.txt"
    lines.write_bytes(text)
    with pytest.raises(PlaybenchError, match=why) as refused:
        playbench.eval("smartplay/hanoi-3", agent="random", instances=str(lines), log_dir=tmp_path / "runs")
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 300
    assert not (tmp_path / "runs").exists()


def test_a_huge_file_a_fifo_and_a_seed_with_instances_are_refused_in_one_line(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as file:
        file.truncate(65 * 2**20)  # sparse: costs no disk
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for args, why in {(str(huge),): "larger than 64 MiB", (str(fifo),): "not a regular file",
                      (str(huge), "--seed", "3"): "--seed has no meaning with --instances"}.items():
        done = run_cli("eval", "smartplay/hanoi-3", "--instances", *args, "--log-dir", str(tmp_path / "runs"))
        assert done.returncode == 2 and why in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists()


def test_a_deep_or_linked_balrog_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = _submission(tmp_path / "row", {"babyai/BabyAI-MixedTrainLocal-v0/goto": [(0, 1)]})
    episode = next(folder.rglob("goto_run_00.json"))
    episode.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(PlaybenchError, match="not a readable episode file: JSON nested too deep"):
        playbench.eval("balrog/babyai/goto", agent="random", instances=folder, log_dir=tmp_path / "runs")
    episode.unlink()
    episode.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(PlaybenchError, match="symbolic link"):
        playbench.eval("balrog/babyai/goto", agent="random", instances=folder, log_dir=tmp_path / "runs")
    assert not (tmp_path / "runs").exists()


def test_run_json_holds_no_seeds_without_instances(source: Path) -> None:
    """A run without ``--instances`` records its config as before: no ``seeds``, no ``instances`` setting."""
    meta = json.loads((source / "run.json").read_text())
    assert all("seeds" not in task and "options" not in task for task in meta["config"]["tasks"])
    assert '"options"' not in (source / "episodes.jsonl").read_text()
    assert "instances" not in meta["settings"]
