"""``report`` on a BALROG leaderboard folder that publishes its summary alone: nothing to recompute, shown as published.

18 of the leaderboard's submission folders (github.com/balrog-ai/experiments, ``submissions/{LLM,VLM}/``, commit
989931c) hold ``README.md``, ``metadata.yaml`` and ``summary.json`` and no episode files. The folder written
here is ``submissions/LLM/20240924_naive-GPT4o`` (its figures, rounded to two decimals as published, its key
order and its client and agent blocks). When ``$PLAYBENCH_TEST_DATA`` holds such folders, each of them is
reported too.
"""

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from playbench.cli.report_cmd import command as report_command
from playbench.core.errors import PlaybenchError
from playbench.suites.balrog import submission

#: what the published summary.json states (in its order)
PUBLISHED: dict[str, Any] = {
    "average_progress": 32.34,
    "standard_error": 1.49,
    "environments": {
        "minihack": {"progression_percentage": 10.0, "standard_error": 4.74, "episodes_played": 40},
        "crafter": {"progression_percentage": 33.1, "standard_error": 2.32, "episodes_played": 10},
        "babyai": {"progression_percentage": 77.6, "standard_error": 3.73, "episodes_played": 125},
        "textworld": {"progression_percentage": 39.31, "standard_error": 5.24, "episodes_played": 60},
        "nle": {"progression_percentage": 0.37, "standard_error": 0.37, "episodes_played": 5},
        "babaisai": {"progression_percentage": 33.66, "standard_error": 3.3, "episodes_played": 200},
    },
    "client": {"client_name": "openai", "model_id": "gpt-4o-2024-05-13", "base_url": None,
               "generate_kwargs": {"temperature": 0.0, "max_tokens": 1024}, "timeout": 60, "max_retries": 5,
               "delay": 2},
    "agent": {"type": "naive", "remember_cot": True, "max_history": 16, "max_image_history": 0,
              "max_cot_history": 1, "cache_icl": False},
}
METADATA = 'name: GPT-4o-2024-05-13\noss: true\nsite: null\nverified: true\ntrajs: False\ndate: "2024-11-11"\n'


def _write(folder: Path, summary: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("# GPT-4o\n\nNaive agent, zero-shot.\n")
    (folder / "metadata.yaml").write_text(METADATA)
    (folder / "summary.json").write_text(json.dumps(PUBLISHED if summary is None else summary, indent=4))
    return folder


def test_nothing_is_recomputed_and_the_published_figures_are_kept_as_written(tmp_path: Path) -> None:
    folder = _write(tmp_path / "20240924_naive-GPT4o")
    assert submission.is_submission(folder)
    result = submission.read_submission(folder)
    assert (result["recomputed"], result["summary"], result["mismatches"]) == (False, None, [])
    assert result["note"] == "no episode files to recompute: showing the published summary as published"
    published = result["published"]
    assert (published["average_progress"], published["standard_error"]) == (32.34, 1.49)
    assert published["environments"] == PUBLISHED["environments"]
    assert list(published["environments"]) == list(PUBLISHED["environments"])  # the published order


def test_report_says_so_and_shows_the_published_figures(tmp_path: Path) -> None:
    folder = _write(tmp_path / "20240924_naive-GPT4o")
    out = CliRunner().invoke(report_command, [str(folder)], env={"COLUMNS": "120"})
    assert out.exit_code == 0, out.output
    text = out.output
    assert "no episode files to recompute: showing the published summary as published" in text
    assert "Overall Average Progression: 32.34% ± 1.49% (published, not recomputed)" in text
    assert "published % ± SE" in text  # the table's column
    assert "33.66 ± 3.3" in text and "77.6 ± 3.73" in text  # as written, not reformatted
    assert "0.00%" not in text and "disagrees" not in text and "agrees" not in text
    data = json.loads(CliRunner().invoke(report_command, [str(folder), "--json"]).output)
    assert (data["recomputed"], data["summary"], data["published"]["average_progress"]) == (False, None, 32.34)
    assert data["recorded"]["agent"]["type"] == "naive"


def test_published_figures_that_are_no_numbers_are_one_clear_line(tmp_path: Path) -> None:
    stated = json.loads(json.dumps(PUBLISHED))
    stated["average_progress"] = math.nan  # json writes NaN, which Python's reader accepts
    folder = _write(tmp_path / "nan", stated)
    out = CliRunner().invoke(report_command, [str(folder)])
    assert isinstance(out.exception, PlaybenchError)
    assert "average_progress nan is not a finite number" in str(out.exception)
    stated = json.loads(json.dumps(PUBLISHED))
    stated["environments"]["nle"]["episodes_played"] = "five"
    folder = _write(tmp_path / "text", stated)
    out = CliRunner().invoke(report_command, [str(folder)])
    assert isinstance(out.exception, PlaybenchError)
    assert "nle episodes_played 'five' is not a whole number" in str(out.exception)


def test_a_folder_with_neither_episodes_nor_summary_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    (folder / "nle").mkdir(parents=True)
    (folder / "nle" / "nle_summary.json").write_text("{}")
    assert submission.is_submission(folder)
    out = CliRunner().invoke(report_command, [str(folder)])
    assert isinstance(out.exception, PlaybenchError)
    assert "no episode files to recompute and no summary.json to show" in str(out.exception)


def _summary_only_folders(root: Path) -> list[Path]:
    """Every BALROG submission folder under ``root`` that holds a summary.json and no episode file."""
    found = []
    for path in sorted(root.rglob("summary.json")):
        folder = path.parent
        if submission.is_submission(folder) and not submission.read_episodes(folder):
            found.append(folder)
    return found


def test_the_leaderboards_summary_only_folders(shared_data: Path) -> None:
    folders = _summary_only_folders(shared_data)
    if not folders:
        pytest.skip(f"no summary-only BALROG submission folder under {shared_data}")
    for folder in folders:
        stated = json.loads((folder / "summary.json").read_text())
        out = CliRunner().invoke(report_command, [str(folder)], env={"COLUMNS": "160"})
        assert out.exit_code == 0, (folder, out.output)
        assert "no episode files to recompute: showing the published summary as published" in out.output, folder
        line = (f"Overall Average Progression: {stated['average_progress']:.2f}% ± {stated['standard_error']:.2f}% "
                "(published, not recomputed)")
        assert line in out.output, folder
        assert "disagrees" not in out.output, folder
        published = submission.read_submission(folder)["published"]
        for env, block in stated["environments"].items():
            assert published["environments"][env] == {k: block[k] for k in published["environments"][env]}, folder
