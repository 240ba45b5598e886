"""Suites declare their report hooks: ``Suite.summary``/``pictures`` name them (``"module:NAME"``, imported on
first use), each task names its picture kind, and ``report/`` knows no suite. A suite loaded from outside
playbench (``tests/outside_suite``, through ``PLAYBENCH_SUITES``) gets its own summary, pictures and figures."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from helpers import only_run_dir, run_cli
from playbench.core.errors import PlaybenchError
from playbench.core.registry import list_tasks, suites
from playbench.core.suite import Suite, SummaryHooks
from playbench.core.task import PictureKind
from playbench.report.viewer_data import read_shard

TESTS = Path(__file__).resolve().parents[1]
REPORT = TESTS.parent / "src" / "playbench" / "report"
OUTSIDE = {"PYTHONPATH": os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH", "")) if p),
           "PLAYBENCH_SUITES": "outside_suite.tasks"}


def _suite_words(text: str, names: list[str]) -> list[str]:
    """What in ``text`` names a suite's code or tasks: its module path, or a suite name used as a task-id
    prefix (``smartplay/``) or as a quoted key (``"balrog"``). Prose (``SmartPlay's``, ``GRASP``) is fine."""
    words = "|".join(map(re.escape, names))
    return re.findall(rf"playbench\.suites|\b(?:{words})/|[\"'`](?:{words})[\"'`]", text)


def test_the_report_names_no_suite():
    names = sorted(suites())
    assert {"balrog", "grasp", "mango", "smartplay"} <= set(names)
    # the rule catches the naming conventions the report once used
    for line in ('name = f"playbench.suites.{suite}.summary"', 'if (task.startsWith("balrog/nle/")) return tty(t);',
                 'runs = _runs(reports, lambda r: r.get("smartplay", {}))', "r['mango']"):
        assert _suite_words(line, names), line
    files = [*REPORT.rglob("*.py"), *(REPORT / "viewer_assets").glob("*.js")]
    assert len(files) > 10
    found = {f.name: hits for f in files if (hits := _suite_words(f.read_text(), names))}
    assert found == {}


def test_every_picture_kind_is_drawn_by_the_page():
    script = (REPORT / "viewer_assets" / "pictures.js").read_text()
    kinds = set(get_args(PictureKind))
    assert {task.picture for task in list_tasks()} - {None} == kinds  # every kind is used, none unknown
    for kind in kinds:
        assert f'kind === "{kind}"' in script, kind


def test_hooks_are_named_not_imported_and_refused_in_one_line():
    with pytest.raises(PlaybenchError, match="'summary' is not 'package.module:NAME'"):
        Suite(name="x", summary="summary")
    missing = Suite(name="x", summary="no_such_hooks_module:SUMMARY")  # declaring imports nothing
    with pytest.raises(PlaybenchError, match="no module 'no_such_hooks_module'"):
        missing.summary_hooks()
    with pytest.raises(PlaybenchError, match="has no 'NOPE'"):
        Suite(name="x", summary="playbench.core.suite:NOPE").summary_hooks()
    with pytest.raises(PlaybenchError, match="is a PictureHooks, not a SummaryHooks"):
        Suite(name="x", summary="outside_suite.pictures:PICTURES").summary_hooks()
    (smartplay,) = [s for s in suites()["smartplay"] if s.summary is not None]
    hooks = smartplay.summary_hooks()
    assert isinstance(hooks, SummaryHooks) and hooks is smartplay.summary_hooks()  # resolved once


def test_listing_suites_imports_no_hook():
    code = ("import sys; from playbench.core import registry; registry.load_suites(); "
            "print(sorted(m for m in sys.modules if m.endswith(('.summary', '.pictures'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **OUTSIDE},
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_suite_from_outside_brings_its_summary_pictures_and_figures(tmp_path: Path):
    listed = run_cli("list", env=OUTSIDE)
    assert listed.returncode == 0 and "tiny/two" in listed.stdout, listed.stderr
    ran = run_cli("eval", "tiny/two", "--agent", "random", "--quiet", "--log-dir", str(tmp_path / "runs"), env=OUTSIDE)
    assert ran.returncode == 0, ran.stderr
    run = only_run_dir(tmp_path / "runs")

    report = json.loads(run_cli("report", str(run), "--json", env=OUTSIDE).stdout)
    records = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert report["tiny"] == {"marker": "tiny-summary", "lefts": sum(r["score"] for r in records),
                              "scheduled": {"tiny/two": 2}}
    assert report["tasks"]["tiny/two"]["tiny_episodes"] == 2
    text = run_cli("report", str(run), env=OUTSIDE)
    assert text.returncode == 0 and "TINY SUITE TABLE" in text.stdout, text.stderr

    site = tmp_path / "site"
    assert run_cli("view", str(run), "--output", str(site), env=OUTSIDE).returncode == 0
    episodes = read_shard(site / "data" / "r0" / "s0.js")
    assert [e["picture"] for e in episodes] == ['<svg xmlns="http://www.w3.org/2000/svg"><title>tiny-episode 2 steps'
                                                "</title></svg>"] * 2
    step = episodes[0]["steps"][1]
    assert episodes[0]["texts"][step[-1]].endswith("<title>tiny-step 1</title></svg>")
    assert (site / "data" / "pictures.js").read_text() == 'PB.setPictures({"tiny/two": "tty"});\n'
    assert "data/pictures.js" in (site / "episode.html").read_text()

    plots = run_cli("plot", str(run), "--output", str(tmp_path / "plots"), env=OUTSIDE)
    assert plots.returncode == 0, plots.stderr
    assert "tiny lefts per run" in (tmp_path / "plots" / "tiny_lefts.svg").read_text()

    # without the module nothing knows the suite: its records are reported plainly, drawn by nothing
    alone = json.loads(run_cli("report", str(run), "--json").stdout)
    assert "tiny" not in alone and "tiny_episodes" not in alone["tasks"]["tiny/two"]
