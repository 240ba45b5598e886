"""A bad request to ``inspect eval playbench/...`` is its one line, whatever Inspect's display: an unknown task id,
an engine that is not installed (its install command intact: rich would read ``[babyai]`` as markup), a bad
parameter. No traceback, no log."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

INSPECT = Path(sys.executable).with_name("inspect")
GUARD = Path(__file__).parent / "netguard"
#: a ``sitecustomize`` that makes Minigrid unimportable, as in an environment without the babyai extra
NO_MINIGRID = 'import sys\nsys.modules["minigrid"] = None\n'


def _inspect(env: dict[str, str], logs: Path, *args: str) -> list[str]:
    done = subprocess.run([str(INSPECT), "eval", *args, "--model", "mockllm/model", "--log-dir", str(logs)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert not logs.exists()
    return (done.stdout + done.stderr).strip().splitlines()


@pytest.mark.parametrize("display", ["rich", "plain", "none"])
def test_an_unknown_task_id_is_one_line(inspect_env: dict[str, str], tmp_path: Path, display: str) -> None:
    [line] = _inspect({**inspect_env, "INSPECT_DISPLAY": display}, tmp_path / "logs", "playbench/balrog",
                      "-T", "task=balrog/babyai/gotoo")
    assert line.startswith("error: unknown task 'balrog/babyai/gotoo'") and "balrog/babyai/goto" in line


@pytest.mark.parametrize("display", ["rich", "none"])
def test_a_missing_engine_is_one_line_with_its_install_command(inspect_env: dict[str, str], tmp_path: Path,
                                                               display: str) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(NO_MINIGRID + (GUARD / "sitecustomize.py").read_text())  # one is loaded
    env = {**inspect_env, "INSPECT_DISPLAY": display, "PYTHONPATH": os.pathsep.join([str(site), inspect_env["PYTHONPATH"]])}
    [line] = _inspect(env, tmp_path / "logs", "playbench/balrog", "-T", "task=balrog/babyai/goto")
    assert "balrog/babyai/goto needs Minigrid (BabyAI), which is not installed" in line
    assert line.endswith("install it with: pip install 'playbench[babyai]'")


def test_a_bad_parameter_is_one_line(inspect_env: dict[str, str], tmp_path: Path) -> None:
    [line] = _inspect({**inspect_env, "INSPECT_DISPLAY": "rich", "COLUMNS": "60"}, tmp_path / "logs",
                      "playbench/smartplay", "-T", "task=smartplay/hanoi-3", "-T", "max_steps=-3")
    assert line.startswith("error: ") and "max_steps" in line  # not wrapped at the terminal's width either
