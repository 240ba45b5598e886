"""The static HTML viewer: works from ``file://`` with no network.

Pages are plain HTML written here (every value escaped); the data goes into small ``.js`` files that call
``PB.set…`` and are loaded by ``<script src>``, which browsers allow from ``file://`` (``fetch`` is not).
Each episode has its own data file, loaded only when its page is opened, so 10,000-episode runs open fast.

Records are untrusted data. An episode's data file is ``data/r<run>/ep/<folder>/<index>.js``, where the
folder is the task id itself only when it has the registry's shape (lower-case path segments of letters,
digits and ``_.+-``, none of them ``.``, ``..`` or a ``.js`` name), and ``_/<number>`` for any other id; the
page finds the folder in ``tasks.js``. So a task id such as ``../../x`` cannot place a file outside the output
folder. The viewer reads trajectories and frames only when the path a record names resolves inside its
run; otherwise the episode shows an error line.
"""

import base64
import html
import importlib
import importlib.util
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from playbench.core.records import STATUSES, EpisodeRecord, StepRecord
from playbench.log import RunLog, inside_run
from playbench.report.build import build_report, episodes_text, errors_text, suite_of
from playbench.report.inert import inert_text

ASSETS = Path(__file__).with_name("viewer_assets")
# A task id usable as a folder as it is: the registry's shape (registered ids all match), not too long.
_TASK_FOLDER = re.compile(r"[a-z0-9][a-z0-9_.+-]{0,99}(/[a-z0-9][a-z0-9_.+-]{0,99})+")
LABEL_LIMIT = 300  # longest task id, model name or path shown in the overview tables
PROBLEMS_SHOWN = 20  # error lines listed per run on the overview; the rest are counted


def _js(call: str, *args: Any) -> str:
    # ensure_ascii also escapes U+2028/2029, so the data is always valid JavaScript
    return f"{call}({', '.join(json.dumps(a, ensure_ascii=True) for a in args)});\n"


def _svg_uri(svg: str | None) -> str | None:
    return None if not svg else "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def _pictures_module(task_id: str) -> Any | None:
    suite = suite_of(task_id)  # None for a task id whose suite part could name another module
    if suite is None or importlib.util.find_spec(f"playbench.suites.{suite}") is None:
        return None
    name = f"playbench.suites.{suite}.pictures"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def task_folder(task_id: str, number: int) -> str:
    """The folder (below ``ep/``) of a task's episode files: the id itself or ``_/<number>``.

    The id is used only when it has the registry's shape; ``_`` starts no such id, and no segment of one
    can be an episode file's name, so two tasks never share or clash over a file.
    """
    plain = (_TASK_FOLDER.fullmatch(task_id) and len(task_id) <= 200
             and not any(part.endswith(".js") for part in task_id.split("/")))
    return task_id if plain else f"_/{number}"


def _label(value: object) -> str:
    """Record text for an HTML page: inert, one line, cut to a readable length, HTML-escaped."""
    return html.escape(inert_text(value, limit=LABEL_LIMIT, one_line=True))


def _shown(path: str) -> str:
    return repr(inert_text(path, limit=200, one_line=True))


def read_steps(store: RunLog, record: EpisodeRecord) -> tuple[list[StepRecord], list[str]]:
    """An episode's steps and the problems met reading them (nothing outside the run is ever opened)."""
    if not record.trajectory:
        return [], []
    file = inside_run(store.path, record.trajectory)
    if file is None:
        return [], [f"trajectory {_shown(record.trajectory)} is outside the run: refused, nothing was read"]
    if not file.is_file():
        return [], [f"trajectory {_shown(record.trajectory)} is missing"]
    try:
        data = file.read_bytes()
    except OSError as exc:
        return [], [f"trajectory {_shown(record.trajectory)} is unreadable ({exc.strerror or exc})"]
    steps = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            steps.append(StepRecord.model_validate_json(line))
        except (ValidationError, ValueError) as exc:
            reason = inert_text(str(exc).splitlines()[0], limit=200, one_line=True)
            return steps, [f"trajectory line {number} is corrupt ({reason}); later steps are not shown"]
    return steps, []


def frame_urls(store: RunLog, steps: list[StepRecord], site: Path) -> tuple[list[str | None], list[str]]:
    """Per step, the URL (relative to the site) of the frame the agent saw, and the frames refused."""
    urls: list[str | None] = []
    problems = []
    for s in steps:
        file = inside_run(store.path, s.frame) if s.frame else None
        if s.frame and file is None:
            problems.append(f"step {s.step}: frame {_shown(s.frame)} is outside the run: refused, not shown")
        elif s.frame and file is not None and not file.is_file():
            problems.append(f"step {s.step}: frame {_shown(s.frame)} is missing")
            file = None
        urls.append(None if file is None else quote(Path(os.path.relpath(file, site.resolve())).as_posix()))
    return urls, problems


def episode_payload(record: EpisodeRecord, steps: list[StepRecord], frames: list[str | None] | None = None,
                    errors: list[str] | None = None) -> dict[str, Any]:
    """What the episode page shows.

    The record, its steps, the suite's pictures (as SVG data URIs), the URLs (relative to the site) of
    the frames the agent saw, and any problem met reading the episode.
    """
    module = _pictures_module(record.task)
    picture = step_pictures = None
    if module is not None:
        if hasattr(module, "episode_picture"):
            picture = _svg_uri(module.episode_picture(record, steps))
        if hasattr(module, "step_picture"):
            step_pictures = [_svg_uri(module.step_picture(record, s)) for s in steps]
    return {
        "record": record.model_dump(mode="json"),
        "steps": [s.model_dump(mode="json") for s in steps],
        "picture": picture,
        "step_pictures": step_pictures,
        "frames": frames or [None] * len(steps),
        "errors": errors or [],
    }


def _page(title: str, body: str, scripts: list[str], page: str) -> str:
    # No inline script at all, so the policy can forbid every script but the site's own files.
    tags = "".join(f'<script src="{html.escape(s)}"></script>' for s in ["viewer.js", *scripts])
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<meta http-equiv='Content-Security-Policy' content=\"default-src 'self' data:; "
            f"style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'none'; object-src 'none'\">"
            f"<link rel='stylesheet' href='viewer.css'></head><body data-page='{page}'>"
            f"<header><b>playbench</b> · <a href='index.html'>runs</a></header><main>{body}</main>{tags}"
            f"</body></html>")


def _stat(stat: dict[str, Any]) -> str:
    if stat.get("mean") is None:
        return "-"
    se = stat.get("stderr")
    return f"{stat['mean']:.3f}" + (f" ± {se:.3f}" if se is not None else "")


def _problems(problems: list[str]) -> str:
    if not problems:
        return ""
    items = "".join(f"<li>{html.escape(p)}</li>" for p in problems[:PROBLEMS_SHOWN])
    more = f"<li>… and {len(problems) - PROBLEMS_SHOWN} more</li>" if len(problems) > PROBLEMS_SHOWN else ""
    return f"<ul class='bad problems'>{items}{more}</ul>"


def _run_section(k: int, report: dict[str, Any], problems: list[str]) -> str:
    run = report["run"]
    e = _label
    rows = "".join(
        f"<tr><td class='l'>{e(tid)}</td><td>{episodes_text(t)}</td><td>{t['status'].get('ok', 0)}</td>"
        f"<td>{errors_text({s: t['status'].get(s, 0) for s in STATUSES})}</td><td>{e(_stat(t['score']))}</td>"
        f"<td>{e(_stat(t['completion']))}</td><td>{t['steps']}</td><td>{t['invalid_actions']}</td></tr>"
        for tid, t in report["tasks"].items()
    )
    suites = "".join(
        f"<details><summary>{e(name)} summary</summary><pre>{html.escape(json.dumps(value, indent=2))}</pre>"
        f"</details>"
        for name, value in report.items() if name not in ("run", "tasks")
    )
    coverage = run["episodes"]
    flag = "meta" if coverage["complete"] and not coverage["unscheduled"] else "bad"
    who = run["model"] or run["agent"]
    return (f"<section id='run-{k}'><h2>{e(run['run_id'])}</h2>"
            f"<p class='meta'>agent {e(run['agent'])} · model {e(run['model'] or '-')} · seed {run['seed']} · "
            f"config {e(run['config_hash'])} · {e(run['path'])}</p>"
            f"<p class='{flag} coverage'>{html.escape(coverage['note'])}</p>{_problems(problems)}"
            f"<table><tr><th class='l'>task ({e(who)})</th><th>episodes</th><th>ok</th><th>errors</th><th>score</th>"
            f"<th>completion</th><th>steps</th><th>invalid</th></tr>{rows}</table>{suites}"
            f"<h3>episodes</h3><div id='episodes-{k}'>loading…</div></section>")


def _write_run(k: int, store: RunLog, out: Path) -> list[str]:
    """Write one run's data files (``data/r<k>/``); returns the problems met, one line per episode."""
    data = out / "data" / f"r{k}"
    if data.exists():
        shutil.rmtree(data)
    (data / "ep").mkdir(parents=True)
    latest = store.latest_episodes()
    folders: dict[str, str] = {}  # task id -> the folder of its episode files
    rows, problems = [], []
    for key in sorted(latest):
        rec = latest[key]
        folder = folders.setdefault(rec.task, task_folder(rec.task, len(folders)))
        rows.append([rec.task, rec.index, rec.seed, rec.status, rec.score, rec.completion, rec.steps,
                     rec.invalid_actions, sum(rec.usage.values())])
        steps, errors = read_steps(store, rec)
        frames, frame_errors = frame_urls(store, steps, out)
        errors += frame_errors
        problems += [f"{inert_text(rec.task, limit=LABEL_LIMIT, one_line=True)} #{rec.index}: {p}" for p in errors]
        target = data / "ep" / folder / f"{int(rec.index)}.js"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_js("PB.setEpisode", k, folder, rec.index, episode_payload(rec, steps, frames, errors)))
    (data / "tasks.js").write_text(_js("PB.setTasks", k, folders))
    (data / "episodes.js").write_text(_js("PB.setEpisodes", k, rows))
    return problems


def write_site(runs: list[RunLog], out: Path) -> Path:
    """Write the viewer for these runs into ``out``; returns the path of ``index.html``.

    Every file written is below ``out``; records are read only inside their own run directories.
    """
    out.mkdir(parents=True, exist_ok=True)
    for asset in ("viewer.js", "viewer.css"):
        shutil.copyfile(ASSETS / asset, out / asset)
    reports = [build_report(run) for run in runs]
    problems = [_write_run(k, run, out) for k, run in enumerate(runs)]
    (out / "data" / "runs.js").write_text(_js("PB.setRuns", [r["run"] for r in reports], list(STATUSES)))
    body = "<h1>Runs</h1>" + "".join(_run_section(k, r, problems[k]) for k, r in enumerate(reports))
    (out / "index.html").write_text(_page("playbench runs", body, ["data/runs.js"], "index"), encoding="utf-8")
    (out / "episode.html").write_text(
        _page("playbench episode", "<div id='episode'></div>", ["data/runs.js"], "episode"), encoding="utf-8")
    return out / "index.html"
