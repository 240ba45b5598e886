"""Messenger says which manual it reads: on the line a run starts with and on the report's task line;
compat refuses to run without the official sentences (one line, exit 2, no run directory)."""

import json
from pathlib import Path

from click.testing import CliRunner

from helpers import run_cli
from playbench.cli.eval_cmd import command as eval_command
from playbench.cli.report_cmd import command as report_command
from playbench.suites.smartplay.messenger.manual import TEMPLATED_NOTE

NAMES = ["airplane", "mage", "dog", "bird", "fish", "scientist", "thief", "ship", "ball", "robot", "queen", "sword"]


def _official(tmp_path: Path) -> Path:
    data = {n: {r: {t: [f"{n} {r} {t} sentence."] for t in ("chaser", "fleeing", "immovable", "unknown")}
                for r in ("enemy", "message", "goal")} for n in NAMES}
    path = tmp_path / "text_test.json"
    path.write_text(json.dumps(data))
    return path


def _eval(args: list[str]):
    return CliRunner().invoke(eval_command, args)


def _run_dir(log_dir: Path) -> Path:
    (run,) = [p for p in log_dir.iterdir() if (p / "run.json").exists()]
    return run


def test_templated_manual_is_named_on_the_run_and_report_lines(tmp_path: Path) -> None:
    result = _eval(["smartplay/messenger-1", "smartplay/messenger-2", "smartplay/hanoi-3", "--episodes", "1",
                    "--log-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for level in (1, 2):
        assert any(ln.startswith(f"smartplay/messenger-{level}: manual: {TEMPLATED_NOTE}") for ln in lines)
    assert not any(ln.startswith("smartplay/hanoi-3:") for ln in lines)
    report = json.loads(CliRunner().invoke(report_command, [str(_run_dir(tmp_path)), "--json"]).output)
    entry = report["tasks"]["smartplay/messenger-2"]
    assert entry["manual_source"] == "templated" and TEMPLATED_NOTE in entry["note"]
    assert "note" not in report["tasks"]["smartplay/hanoi-3"]
    table = CliRunner().invoke(report_command, [str(_run_dir(tmp_path))], terminal_width=250).output
    # the table prints the suite prefix once ("smartplay/") above its task rows
    assert any(ln.strip().startswith("messenger-1 ") and TEMPLATED_NOTE in ln for ln in table.splitlines())


def test_official_manual_is_named(tmp_path: Path) -> None:
    text = _official(tmp_path)
    result = _eval(["smartplay/messenger-1", "--episodes", "1", "-T", f"messenger_text={text}",
                    "--log-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert "smartplay/messenger-1: manual: official text_test.json" in result.output
    assert TEMPLATED_NOTE not in result.output
    report = json.loads(CliRunner().invoke(report_command, [str(_run_dir(tmp_path / "runs")), "--json"]).output)
    assert report["tasks"]["smartplay/messenger-1"]["manual_source"] == "official"


def test_compat_refuses_without_the_official_text(tmp_path: Path) -> None:
    for tasks in (["smartplay/messenger-2"], ["smartplay/benchmark-v0"]):
        result = run_cli("eval", *tasks, "-T", "compat=true", "--log-dir", str(tmp_path / "runs"))
        assert result.returncode == 2 and result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1
        assert "messenger_text=PATH" in result.stderr and "text_test.json" in result.stderr
        assert not (tmp_path / "runs").exists()
    ok = _eval(["smartplay/messenger-2", "-T", "compat=true", "-T", f"messenger_text={_official(tmp_path)}",
                "--episodes", "1", "--log-dir", str(tmp_path / "runs")])
    assert ok.exit_code == 0, ok.output
