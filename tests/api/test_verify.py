"""``playbench verify``: untouched runs re-play to their records; an edited record of any kind is found."""

import csv
import dataclasses
import io
import json
import shutil
import struct
import zlib
from pathlib import Path

import pytest

import playbench
from helpers import only_run_dir, run_cli
from playbench.api import verify as verify_module
from playbench.core.errors import PlaybenchError
from playbench.core.registry import find_task

#: one short task of each suite, each a different engine
TASKS = ["smartplay/hanoi-3", "mango/df", "grasp/energy", "balrog/babyai/goto"]
#: a shard chunk's header (log/shard.py): magic, kind, tag, payload length, payload CRC-32
HEADER = struct.Struct("<3sBQII")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A random agent's run of the four suites, and a mock model's run with invalid answers."""
    made = {}
    for name, args in {"random": [*TASKS, "--agent", "random", "--episodes", "2"],
                       "model": ["smartplay/hanoi-3", "balrog/babyai/goto", "--model", "mock/demo", "-M",
                                 "invalid_rate=0.4", "--episodes", "2", "-T", "max_steps=12"]}.items():
        log = tmp_path_factory.mktemp(name)
        done = run_cli("eval", *args, "--seed", "7", "--quiet", "--log-dir", str(log))
        assert done.returncode == 0, done.stderr
        made[name] = only_run_dir(log)
    return made


def _copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / run.name
    shutil.copytree(run, target)
    return target


def _lines(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]


def _write_lines(run: Path, rows: list[dict]) -> None:
    (run / "episodes.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def _differing(result: playbench.VerifyResult) -> dict[str, str]:
    return {f.name: f.difference.describe() for f in result.findings if f.verdict == "differs" and f.difference}


def test_untouched_runs_of_the_four_suites_verify(runs: dict[str, Path]) -> None:
    result = playbench.verify(runs["random"])
    assert (result.verified, result.differing, result.not_verifiable) == (8, 0, 0) and result.ok
    assert {f.task for f in result.findings} == set(TASKS)
    model = playbench.verify(runs["model"])
    assert (model.verified, model.differing, model.not_verifiable) == (4, 0, 0)
    assert sum(r["invalid_actions"] for r in _lines(runs["model"])) > 0  # invalid steps were checked too
    done = run_cli("verify", str(runs["random"]))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("8 verified, 0 differing, 0 not verifiable")


def test_a_scored_episode_without_steps_is_not_vouched_for(runs: dict[str, Path], tmp_path: Path) -> None:
    """A forged score whose steps were dropped cannot pass: nothing differs, yet verify exits 3, not 0."""
    run = _copy(runs["random"], tmp_path)
    rows = _lines(run)
    rows[0]["trajectory"], rows[0]["score"] = None, 50.0
    _write_lines(run, rows)
    result = playbench.verify(run)
    assert result.ok and result.unchecked == 1 and not result.complete
    done = run_cli("verify", str(run))
    assert done.returncode == 3, done.stdout
    assert "not verified: 1 scored episode(s) could not be checked" in done.stdout
    assert playbench.verify(runs["random"]).complete


def test_an_edited_score_is_found(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["random"], tmp_path)
    rows = _lines(run)
    target = next(r for r in rows if r["task"] == "grasp/energy" and r["index"] == 1)
    target["score"] = target["score"] + 1.0
    _write_lines(run, rows)
    assert _differing(playbench.verify(run)) == {
        "grasp/energy #1": f"score: recorded {target['score']!r}, replayed {target['score'] - 1.0!r}"}
    done = run_cli("verify", str(run))
    assert done.returncode == 1
    assert "7 verified, 1 differing, 0 not verifiable" in done.stdout
    assert "differs: grasp/energy #1 score: recorded" in done.stdout


def test_a_swapped_seed_is_found(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["random"], tmp_path)
    rows = _lines(run)
    first, second = (r for r in rows if r["task"] == "smartplay/hanoi-3")
    first["seed"], second["seed"] = second["seed"], first["seed"]
    _write_lines(run, rows)
    found = _differing(playbench.verify(run))
    assert set(found) == {"smartplay/hanoi-3 #0", "smartplay/hanoi-3 #1"}
    assert found["smartplay/hanoi-3 #0"] == f"seed: recorded {first['seed']}, replayed {second['seed']}"


def _edit_shard(shard: Path, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` in the first chunk holding it, re-compressed with a correct length and CRC."""
    data, out, offset, edited = shard.read_bytes(), [], 0, False
    while offset < len(data):
        magic, kind, tag, length, _ = HEADER.unpack_from(data, offset)
        payload = data[offset + HEADER.size: offset + HEADER.size + length]
        lines = zlib.decompress(payload)
        if not edited and old in lines:
            payload, edited = zlib.compress(lines.replace(old, new, 1)), True
        out.append(HEADER.pack(magic, kind, tag, len(payload), zlib.crc32(payload)) + payload)
        offset += HEADER.size + length
    assert edited
    shard.write_bytes(b"".join(out))


def test_an_edited_observation_inside_a_shard_is_found(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["random"], tmp_path)
    record = next(r for r in _lines(run) if r["task"] == "balrog/babyai/goto" and r["index"] == 0)
    steps = playbench.read_run(run).read_trajectory(next(e for e in playbench.read_run(run).episodes()
                                                         if e.task == "balrog/babyai/goto" and e.index == 0))
    shown = steps[1].observation
    word = "wall" if "wall" in shown else shown.split()[0]
    _edit_shard(run / record["trajectory"].split("#")[0], json.dumps(shown)[1:-1].encode(),
                json.dumps(shown.replace(word, word.upper(), 1))[1:-1].encode())
    found = _differing(playbench.verify(run))
    assert list(found) == ["balrog/babyai/goto #0"]
    assert found["balrog/babyai/goto #0"].startswith("step 1 observation: recorded ")
    done = run_cli("verify", str(run))
    assert done.returncode == 1 and "differs: balrog/babyai/goto #0 step 1 observation" in done.stdout


def test_an_edited_final_observation_is_found(runs: dict[str, Path], tmp_path: Path) -> None:
    """The observation after the last step (kept on that step only) is re-played and compared like the others."""
    run = _copy(runs["random"], tmp_path)
    record = next(r for r in _lines(run) if r["task"] == "balrog/babyai/goto" and r["index"] == 1)
    log = playbench.read_run(run)
    steps = log.read_trajectory(next(e for e in log.episodes() if e.task == "balrog/babyai/goto" and e.index == 1))
    assert [s.next_observation is not None for s in steps] == [False] * (len(steps) - 1) + [True]
    last = len(steps) - 1
    old = f'"done":true,"next_observation":{json.dumps(steps[-1].next_observation)}'.encode()
    assert b"wall" in old  # BabyAI's text names the walls in view
    _edit_shard(run / record["trajectory"].split("#")[0], old, old.replace(b"wall", b"WALL", 1))
    found = _differing(playbench.verify(run))
    assert list(found) == ["balrog/babyai/goto #1"]
    assert found["balrog/babyai/goto #1"].startswith(f"step {last} next_observation: recorded ")
    # kept on a step that did not end the episode: the re-play keeps none there
    run = _copy(runs["random"], tmp_path / "again")
    first = f'"step":0,"observation":{json.dumps(steps[0].observation)}'.encode()
    _edit_shard(run / record["trajectory"].split("#")[0], first, first.replace(b'"step":0,', b'"step":0,'
                b'"next_observation":"somewhere else",'))
    found = _differing(playbench.verify(run))
    assert found == {"balrog/babyai/goto #1": "step 0 next_observation: recorded 'somewhere else', replayed None"}


def test_an_edited_action_is_found(runs: dict[str, Path], tmp_path: Path) -> None:
    """A reference policy plays alongside: a different executed action is the policy's difference."""
    run = _copy(runs["random"], tmp_path)
    record = next(r for r in _lines(run) if r["task"] == "smartplay/hanoi-3" and r["index"] == 0)
    log = playbench.read_run(run)
    steps = log.read_trajectory(next(e for e in log.episodes() if e.task == "smartplay/hanoi-3" and e.index == 0))
    legal_other = "A" if steps[0].executed != "A" else "B"
    old = f'"action":"{steps[0].executed}","executed":"{steps[0].executed}"'.encode()
    _edit_shard(run / record["trajectory"].split("#")[0], old,
                f'"action":"{legal_other}","executed":"{legal_other}"'.encode())
    found = _differing(playbench.verify(run))
    assert list(found) == ["smartplay/hanoi-3 #0"] and found["smartplay/hanoi-3 #0"].startswith("step 0 action:")


def test_what_cannot_be_replayed_is_counted_apart(runs: dict[str, Path], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    run = _copy(runs["random"], tmp_path)
    rows = _lines(run)
    failed = next(r for r in rows if r["task"] == "mango/df")  # a game that failed before its first step
    failed.update(status="game-error", score=None, completion=None, progress=None, metrics={}, trajectory=None,
                  steps=0, reward=0.0, invalid_actions=0)
    _write_lines(run, rows)
    hanoi = find_task("smartplay/hanoi-3")
    assert hanoi is not None

    def find(task_id: str):  # the one task declared not reproducible
        task = find_task(task_id)
        return dataclasses.replace(task, not_reproducible="its moves come from the clock") if task is hanoi else task

    monkeypatch.setattr(verify_module, "find_task", find)
    result = playbench.verify(run)
    reasons = {f.name: f.reason for f in result.findings if f.verdict == "not-verifiable"}
    assert reasons[f"mango/df #{failed['index']}"] == "status game-error: no steps were recorded, so there is nothing to re-play"
    assert reasons["smartplay/hanoi-3 #1"] == "not reproducible by design: its moves come from the clock"
    assert result.differing == 0 and result.verified == 8 - len(reasons)


def test_damaged_steps_are_not_verifiable(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["random"], tmp_path)
    shard = run / next(r for r in _lines(run) if r["task"] == "mango/df")["trajectory"].split("#")[0]
    shard.write_bytes(shard.read_bytes()[:-7])  # its last chunk torn
    result = playbench.verify(run)
    assert result.not_verifiable >= 1 and result.differing == 0
    assert any(f.task == "mango/df" and "steps" in (f.reason or "") for f in result.findings)


def test_a_folder_that_is_no_run_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PlaybenchError, match="neither a playbench run"):
        playbench.verify(tmp_path)
    done = run_cli("verify", str(tmp_path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_balrog_submissions(runs: dict[str, Path], tmp_path: Path) -> None:
    """A reference policy's and a model's submission both re-play, to their last row; a changed cell differs."""
    folder = tmp_path / "random"
    assert run_cli("export", str(runs["random"]), "--format", "balrog", "-o", str(folder)).returncode == 0
    result = playbench.verify(folder)
    assert result.kind == "balrog-submission"
    assert (result.verified, result.differing, result.not_verifiable) == (2, 0, 0)
    csv_file = next(folder.rglob("*_run_01.csv"))
    text = csv_file.read_text()
    csv_file.write_text(text.replace("wall", "WALL", 1) if "wall" in text else text.replace("1.0", "0.5", 1))
    found = playbench.verify(folder)
    assert [f.name for f in found.findings if f.verdict == "differs"] == ["balrog/babyai/goto #1"]
    done = run_cli("verify", str(folder))
    assert done.returncode == 1 and "differs: balrog/babyai/goto #1 step" in done.stdout

    # a mock model's run, played to its game's end: its answers re-play through BALROG's validity check
    log = tmp_path / "played"
    assert run_cli("eval", "balrog/babyai/goto", "--model", "mock/demo", "-M", "invalid_rate=0.4", "--episodes", "2",
                   "--seed", "7", "--quiet", "--log-dir", str(log)).returncode == 0
    model = tmp_path / "model"
    assert run_cli("export", str(only_run_dir(log)), "--format", "balrog", "-o", str(model)).returncode == 0
    result = playbench.verify(model)
    assert (result.verified, result.differing, result.not_verifiable) == (2, 0, 0), result.findings
    assert run_cli("verify", str(model)).returncode == 0
    csv_file = next(model.rglob("*_run_00.csv"))
    rows = list(csv.reader(io.StringIO(csv_file.read_text(), newline=""), escapechar="˘"))
    assert rows[-1][3] and rows[-1][5] == "True"  # the observation after the final step is there
    assert any(row[3].startswith("\n\nYour previous output did not contain a valid action.") for row in rows)
    rows[-1][3] = rows[-1][3].replace("wall", "WALL", 1) if "wall" in rows[-1][3] else rows[-1][3] + "!"
    with csv_file.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, escapechar="˘").writerows(rows)
    changed = _differing(playbench.verify(model))
    assert list(changed) == ["balrog/babyai/goto #0"]
    assert changed["balrog/babyai/goto #0"].startswith(f"step {len(rows) - 2} Observation: recorded")

    # the fixture's model run was stopped by -T max_steps, which a submission does not record
    capped = tmp_path / "capped"
    assert run_cli("export", str(runs["model"]), "--format", "balrog", "-o", str(capped)).returncode == 0
    result = playbench.verify(capped)
    assert (result.verified, result.differing, result.not_verifiable) == (0, 0, 2) and result.ok
    assert all("a step limit of the run (-T max_steps)" in (f.reason or "") for f in result.findings)
    assert run_cli("verify", str(capped)).returncode == 3


def test_frames_are_compared_by_their_pixels(tmp_path: Path) -> None:
    from PIL import Image

    done = run_cli("eval", "balrog/babyai/goto", "--agent", "random", "--episodes", "1", "-T", "images=true", "-T", "max_steps=4",
                   "--seed", "2", "--quiet", "--log-dir", str(tmp_path / "log"))
    assert done.returncode == 0, done.stderr
    run = only_run_dir(tmp_path / "log")
    assert playbench.verify(run).verified == 1
    log = playbench.read_run(run)
    frame = run / log.read_trajectory(log.episodes()[0])[2].frame
    with Image.open(frame) as png:
        pixels = png.convert("RGB")
    pixels.putpixel((0, 0), (1, 2, 3))
    pixels.save(frame, format="PNG")
    assert _differing(playbench.verify(run)) == {
        "balrog/babyai/goto #0": f"step 2 frame: recorded {str(frame.relative_to(run))!r}, replayed 'other pixels'"}


# -- completeness against the run's own schedule, error episodes re-played, claims that cost nothing ----------


def test_a_deleted_episode_is_named_missing(runs: dict[str, Path], tmp_path: Path) -> None:
    """Dropping a failure's line leaves its (task, index) of run.json without a record: named, not exit 0."""
    run = _copy(runs["random"], tmp_path)
    _write_lines(run, [r for r in _lines(run) if (r["task"], r["index"]) != ("grasp/energy", 1)])
    result = playbench.verify(run)
    assert (result.verified, result.differing, result.scheduled, result.missing) == (7, 0, 8, 1)
    assert result.missing_named == ["grasp/energy #1"] and result.ok and not result.complete
    done = run_cli("verify", str(run))
    assert done.returncode == 3, done.stdout
    assert done.stdout.startswith("7 verified, 0 differing, 0 not verifiable (7 episodes of run")
    assert "missing: grasp/energy #1: scheduled in run.json, not recorded (1 of 8 scheduled)" in done.stdout


def test_a_huge_schedule_names_a_few_missing_and_counts_the_rest(runs: dict[str, Path], tmp_path: Path) -> None:
    """Missing episodes are counted from run.json's episode counts, never listed one by one."""
    run = _copy(runs["random"], tmp_path)
    meta = json.loads((run / "run.json").read_text())
    first = meta["config"]["tasks"][0]["id"]
    meta["config"]["tasks"][0]["episodes"] = 999_994  # a million scheduled in all
    (run / "run.json").write_text(json.dumps(meta))
    result = playbench.verify(run)
    assert (result.missing, result.scheduled) == (999_992, 1_000_000)
    assert result.missing_named == [f"{first} #{k}" for k in range(2, 7)]
    done = run_cli("verify", str(run))
    assert done.returncode == 3, done.stdout
    assert f"missing: {first} #2, {first} #3, {first} #4, {first} #5, {first} #6 and 999987 more" in done.stdout
    meta["config"]["tasks"][0]["episodes"] = 10 ** 9  # named and counted, or refused as no schedule: never exit 0
    (run / "run.json").write_text(json.dumps(meta))
    done = run_cli("verify", str(run))
    assert done.returncode in (2, 3) and "Traceback" not in done.stderr, done.stderr


def test_an_ok_episode_relabelled_an_error_differs(runs: dict[str, Path], tmp_path: Path) -> None:
    """A failure relabelled infra-error (no score) would leave the report; its complete steps re-play to ok."""
    run = _copy(runs["random"], tmp_path)
    rows = _lines(run)
    target = next(r for r in rows if r["task"] == "smartplay/hanoi-3" and r["index"] == 1)
    target.update(status="infra-error", score=None, completion=None, progress=None, metrics={}, error="timeout")
    _write_lines(run, rows)
    assert _differing(playbench.verify(run)) == {
        "smartplay/hanoi-3 #1": "status: recorded 'infra-error', replayed 'ok'"}
    done = run_cli("verify", str(run))
    assert done.returncode == 1 and "differs: smartplay/hanoi-3 #1 status: recorded 'infra-error'" in done.stdout


def test_a_real_error_episode_replays_to_its_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine failed step 3: the three recorded steps re-play, and a score forged onto the record differs."""
    from playbench.suites.smartplay.hanoi import HanoiGame

    step = HanoiGame.step

    def failing(self: HanoiGame, action: str):
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == 4:
            raise PermissionError(13, "Permission denied", "/nowhere")
        return step(self, action)

    with monkeypatch.context() as patched:
        patched.setattr(HanoiGame, "step", failing)
        run = playbench.eval("smartplay/hanoi-3", agent="random", episodes=1, log_dir=tmp_path / "log").path
    (record,) = _lines(run)
    assert (record["status"], record["steps"], record["trajectory"] is not None) == ("infra-error", 3, True)
    result = playbench.verify(run)
    assert (result.verified, result.differing, result.not_verifiable) == (1, 0, 0) and result.complete
    record["score"] = 1.0
    _write_lines(run, [record])
    assert _differing(playbench.verify(run)) == {"smartplay/hanoi-3 #0": "score: recorded 1.0, replayed None"}


def test_a_claimed_step_count_differs_without_being_allocated(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["random"], tmp_path)
    rows = _lines(run)
    target = next(r for r in rows if r["task"] == "mango/df" and r["index"] == 0)
    stored, target["steps"] = target["steps"], 10 ** 18  # a list of that many would be a MemoryError
    _write_lines(run, rows)
    assert _differing(playbench.verify(run)) == {
        "mango/df #0": f"steps: recorded {10 ** 18}, replayed {stored}"}
    assert run_cli("verify", str(run)).returncode == 1


def test_deeply_nested_json_lines_are_one_line(runs: dict[str, Path], tmp_path: Path) -> None:
    """A step line (the first layout's file per episode) or an episode line nested 200,000 deep: no traceback."""
    run = _copy(runs["random"], tmp_path)
    rows = _lines(run)
    deep = '{"step": 0, "observation": ' + "[" * 200_000 + "]" * 200_000 + "}\n"
    (run / "trajectories" / "old.jsonl").write_text(deep)
    rows[0]["trajectory"] = "trajectories/old.jsonl"
    _write_lines(run, rows)
    result = playbench.verify(run)
    (finding,) = [f for f in result.findings if f.verdict == "not-verifiable"]
    assert finding.name == f"{rows[0]['task']} #{rows[0]['index']}" and "cannot be read" in (finding.reason or "")
    assert run_cli("verify", str(run)).returncode == 3
    with (run / "episodes.jsonl").open("a") as fh:
        fh.write('{"task": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    done = run_cli("verify", str(run))
    assert done.returncode == 2 and "line 9 is corrupt" in done.stderr and "Traceback" not in done.stderr


def test_a_balrog_folder_is_read_without_leaving_it(runs: dict[str, Path], tmp_path: Path) -> None:
    """An episode file or steps table that is a link out of the folder is refused, not read and counted."""
    folder = tmp_path / "random"
    assert run_cli("export", str(runs["random"]), "--format", "balrog", "-o", str(folder)).returncode == 0
    csv_file = next(folder.rglob("*_run_01.csv"))
    outside = tmp_path / "outside.csv"
    outside.write_bytes(csv_file.read_bytes())
    csv_file.unlink()
    csv_file.symlink_to(outside)
    done = run_cli("verify", str(folder))
    assert done.returncode == 2 and "symbolic link" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_balrog_episode_file_verify_cannot_place_is_not_vouched_for(runs: dict[str, Path], tmp_path: Path) -> None:
    """Every episode file the figure counts is checked: one without BALROG's ``_run_NN`` name is named."""
    from playbench.suites.balrog import submission

    folder = tmp_path / "random"
    assert run_cli("export", str(runs["random"]), "--format", "balrog", "-o", str(folder)).returncode == 0
    extra = next(folder.rglob("*_run_01.json"))
    forged = json.loads(extra.read_text())
    forged["progression"] = 1.0
    (extra.parent / "extra.json").write_text(json.dumps(forged))
    summary, _ = submission.summarize(submission.read_episodes(folder))
    stated = json.loads((folder / "summary.json").read_text())
    (folder / "summary.json").write_text(json.dumps({**stated, **summary}))
    result = playbench.verify(folder)
    assert result.folder_differences == [] and result.verified == 2 and result.unchecked == 1
    assert run_cli("verify", str(folder)).returncode == 3
