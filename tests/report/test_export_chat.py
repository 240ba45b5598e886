"""``playbench export RUN... --format chat``: the requests a run sent and the answers it got, as JSON lines.

Runs talk to the loopback FakeServer, which keeps every request it receives: the messages of the per-step
lines must be exactly those requests. Hugging Face ``datasets`` reads both forms back, with one schema even
when a run's messages are not all plain text.
"""

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from helpers import only_run_dir, run_cli
from playbench.log import read_run
from playbench.models.fakeserver import ODD_TEXT, FakeServer

STEP_KEYS = ["run", "label", "model", "agent", "task", "index", "seed", "status", "score", "step", "raw_output",
             "action", "executed", "valid", "reward", "done", "frame", "messages"]
EPISODE_KEYS = ["run", "label", "model", "agent", "task", "index", "seed", "status", "score", "completion",
                "progress", "reward", "steps", "invalid_actions", "messages"]
NO_KEYS = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}


def _served(log: Path, args: list[str], sequence: list[str | None] | None = None) -> tuple[Path, list[Any]]:
    """A run against a recording FakeServer, and the messages of every request the server received."""
    with FakeServer(record=True, sequence=sequence) as srv:
        res = run_cli("eval", *args, "--model", "openai/fake", "--base-url", srv.url, "--retry-backoff", "0",
                      "--quiet", "--log-dir", str(log), env=NO_KEYS)
        assert res.returncode == 0, res.stderr
        requests = [body["messages"] for _, body in srv.received]
    return only_run_dir(log), requests


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _records(run: Path) -> dict[tuple[str, int], dict[str, Any]]:
    lines = [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines() if x.strip()]
    return {(r["task"], r["index"]): r for r in lines}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Any]:
    """A labelled BabyAI run (its first answer full of control characters), a one-step GRASP run, a random
    agent's Hanoi run (no requests at all), and a copy of the BabyAI run whose first episode's steps hold a
    message of text parts with an image (the first layout's trajectory file, as any run may hold)."""
    root = tmp_path_factory.mktemp("chat")
    babyai, babyai_requests = _served(root / "a", ["balrog/babyai/goto", "-T", "max_steps=4", "--episodes", "2",
                                                   "--label", "fake babyai"], sequence=["odd"])
    grasp, grasp_requests = _served(root / "b", ["grasp/energy", "--episodes", "2"])
    res = run_cli("eval", "smartplay/hanoi-3", "--agent", "random", "--episodes", "1", "-T", "max_steps=3",
                  "--quiet", "--log-dir", str(root / "c"))
    assert res.returncode == 0, res.stderr
    mixed = shutil.copytree(babyai, root / "mixed")
    log = read_run(babyai)
    first = log.episodes()[0]
    steps = [json.loads(s.json_line()) for s in log.iter_trajectory(first)]
    steps[0]["messages"][-1] = {"role": "user", "content": [{"type": "text", "text": "look"}],
                                "images": [{"type": "image", "sha256": "ab", "width": 2, "height": 2}]}
    steps[0]["frame"] = "trajectories/balrog/babyai/goto/000000/00000.png"
    own = f"trajectories/{first.task}/{first.index:06d}.jsonl"
    (mixed / own).write_text("".join(json.dumps(s) + "\n" for s in steps))
    records = [json.loads(x) for x in (mixed / "episodes.jsonl").read_text().splitlines()]
    for r in records:
        if (r["task"], r["index"]) == first.key:
            r["trajectory"] = own
    (mixed / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return {"babyai": babyai, "grasp": grasp, "random": only_run_dir(root / "c"), "mixed": mixed,
            "requests": babyai_requests + grasp_requests}


def _export(tmp_path: Path, name: str, *args: str) -> list[dict[str, Any]]:
    target = tmp_path / name
    res = run_cli("export", *args, "--format", "chat", "-o", str(target))
    assert res.returncode == 0, res.stderr
    return _lines(target)


def test_a_line_per_step_holds_the_request_sent_and_the_answer(runs, tmp_path):
    lines = _export(tmp_path, "steps.jsonl", str(runs["babyai"]), str(runs["grasp"]))
    assert all(list(line) == STEP_KEYS for line in lines)
    # every request the server received, and nothing else, exactly as it was sent
    key = lambda messages: json.dumps(messages, sort_keys=True)  # noqa: E731
    assert Counter(key(line["messages"]) for line in lines) == Counter(key(m) for m in runs["requests"])
    assert len(lines) == len(runs["requests"]) == 2 * 4 + 2
    for run, label in ((runs["babyai"], "fake babyai"), (runs["grasp"], "openai/fake + naive")):
        log, records = read_run(run), _records(run)
        mine = [line for line in lines if line["run"] == run.name]
        assert len(mine) == sum(r["steps"] for r in records.values())
        for line in mine:
            record = records[(line["task"], line["index"])]
            step = log.read_trajectory(log.latest_episodes()[(line["task"], line["index"])])[line["step"]]
            assert line["label"] == label and line["model"] == "openai/fake" and line["agent"] == "naive"
            assert (line["seed"], line["status"], line["score"]) == (record["seed"], record["status"],
                                                                     record["score"])
            assert (line["raw_output"], line["action"], line["executed"], line["valid"], line["reward"],
                    line["done"], line["frame"]) == (step.raw_output, step.action, step.executed, step.valid,
                                                     step.reward, step.done, None)
    # the answer full of control characters is kept exactly, escaped in the file
    odd = [line for line in lines if line["raw_output"] and ODD_TEXT.strip() in line["raw_output"]]  # (the client strips the answer)
    assert len(odd) == 1 and odd[0]["valid"] is False
    raw = (tmp_path / "steps.jsonl").read_bytes()
    assert b"\x00" not in raw and b"\x1b" not in raw and raw.count(b"\n") == len(lines)
    # one-step tasks: one line per question
    grasp = [line for line in lines if line["task"] == "grasp/energy"]
    assert [(line["index"], line["step"], line["done"]) for line in grasp] == [(0, 0, True), (1, 0, True)]


def test_a_line_per_episode_is_one_conversation(runs, tmp_path):
    lines = _export(tmp_path, "episodes.jsonl", str(runs["babyai"]), str(runs["random"]), "--per", "episode")
    assert all(list(line) == EPISODE_KEYS for line in lines)
    assert [(line["task"], line["index"]) for line in lines] == [("balrog/babyai/goto", 0), ("balrog/babyai/goto", 1),
                                                                 ("smartplay/hanoi-3", 0)]
    for line in lines[:2]:
        record = _records(runs["babyai"])[(line["task"], line["index"])]
        log = read_run(runs["babyai"])
        steps = log.read_trajectory(log.latest_episodes()[(line["task"], line["index"])])
        first = [{"role": m["role"], "content": m["content"]} for m in steps[0].messages]
        # the first request, its answer, then each later request's new observation and its answer
        want = first + [{"role": "assistant", "content": steps[0].raw_output}]
        for step in steps[1:]:
            assert step.messages[-2]["role"] == "assistant"  # BALROG's history: the observation comes last
            want += [{"role": "user", "content": step.messages[-1]["content"]},
                     {"role": "assistant", "content": step.raw_output}]
        assert line["messages"] == want
        assert (line["score"], line["reward"], line["steps"], line["invalid_actions"], line["status"]) == \
            (record["score"], record["reward"], record["steps"], record["invalid_actions"], record["status"])
    # a reference agent sends no request: its episode is there, with its score and no conversation
    assert lines[2]["messages"] == [] and lines[2]["agent"] == "random" and lines[2]["steps"] == 3


def test_datasets_reads_both_forms_with_one_schema(runs, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    datasets = pytest.importorskip("datasets")
    args = [str(runs[name]) for name in ("random", "mixed", "grasp", "babyai")]  # no request comes first
    for per, keys in (("step", STEP_KEYS), ("episode", EPISODE_KEYS)):
        lines = _export(tmp_path, f"{per}.jsonl", *args, "--per", per)
        data = datasets.load_dataset("json", data_files=str(tmp_path / f"{per}.jsonl"), split="train",
                                     cache_dir=str(tmp_path / "hf"))
        assert list(data.features) == keys
        assert data.features["messages"] == datasets.List({"role": datasets.Value("string"),
                                                            "content": datasets.Value("string")})
        assert data.to_list() == lines
    # the message of text parts is text (its JSON), its image left out; the step names its frame
    steps = _lines(tmp_path / "step.jsonl")
    part = next(line for line in steps if line["run"] == "mixed" and line["step"] == 0 and line["index"] == 0)
    assert part["messages"][-1] == {"role": "user", "content": json.dumps([{"type": "text", "text": "look"}], sort_keys=True)}
    assert part["frame"] == "trajectories/balrog/babyai/goto/000000/00000.png"


def test_chat_goes_inside_the_run_by_default_and_replaces_only_its_own_lines(runs, tmp_path):
    run = shutil.copytree(runs["grasp"], tmp_path / "run")
    for per, name in (("step", "export.chat.jsonl"), ("episode", "export.chat-episodes.jsonl")):
        for _ in range(2):
            res = run_cli("export", str(run), "--format", "chat", "--per", per)
            assert res.returncode == 0 and res.stdout.strip() == str(run / name), res.stderr
        assert len(_lines(run / name)) == 2
    # an earlier chat export of either form is replaced; a JSON-lines file of someone else's is not
    res = run_cli("export", str(run), "--format", "chat", "-o", str(run / "export.chat.jsonl"), "--per", "episode")
    assert res.returncode == 0 and list(_lines(run / "export.chat.jsonl")[0]) == EPISODE_KEYS
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"messages": [], "note": "mine"}\n')
    table = tmp_path / "table.jsonl"
    assert run_cli("export", str(run), "--format", "jsonl", "-o", str(table)).returncode == 0
    for target in (mine, table):
        kept = target.read_bytes()
        res = run_cli("export", str(run), "--format", "chat", "-o", str(target))
        assert res.returncode == 2 and "is not a chat export written by playbench export" in res.stderr
        assert target.read_bytes() == kept
