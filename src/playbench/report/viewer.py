"""The static HTML viewer: works from ``file://`` with no network.

Pages are plain HTML written here (every value escaped); the data goes into small ``.js`` files that call
``PB.set…`` and are loaded by ``<script src>``, which browsers allow from ``file://`` (``fetch`` is not).
Each episode has its own data file, loaded only when its page is opened, so 10,000-episode runs open fast.
"""

import base64
import html
import importlib
import importlib.util
import json
import os
import shutil
from pathlib import Path
from typing import Any

from playbench.core.records import EpisodeRecord, StepRecord
from playbench.report.build import build_report
from playbench.runner.store import RunStore

ASSETS = Path(__file__).with_name("viewer_assets")


def _js(call: str, *args: Any) -> str:
    # ensure_ascii also escapes U+2028/2029, so the data is always valid JavaScript
    return f"{call}({', '.join(json.dumps(a, ensure_ascii=True) for a in args)});\n"


def _svg_uri(svg: str | None) -> str | None:
    return None if not svg else "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def _pictures_module(task_id: str) -> Any | None:
    name = f"playbench.suites.{task_id.split('/', 1)[0]}.pictures"
    if importlib.util.find_spec(name.rsplit(".", 1)[0]) is None or importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def episode_payload(record: EpisodeRecord, steps: list[StepRecord], run_root: str = "") -> dict[str, Any]:
    """What the episode page shows: the record, its steps and the suite's pictures (as SVG data URIs)."""
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
        "run_root": run_root,  # frames are PNG files in the run directory, linked relative to the site
    }


def _page(title: str, body: str, scripts: list[str], init: str) -> str:
    tags = "".join(f'<script src="{html.escape(s)}"></script>' for s in ["viewer.js", *scripts])
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<meta http-equiv='Content-Security-Policy' content=\"default-src 'self' 'unsafe-inline' data:; "
            f"script-src 'self' 'unsafe-inline'; connect-src 'none'\">"
            f"<link rel='stylesheet' href='viewer.css'></head><body>"
            f"<header><b>playbench</b> · <a href='index.html'>runs</a></header><main>{body}</main>{tags}"
            f"<script>{init}</script></body></html>")


def _stat(stat: dict[str, Any]) -> str:
    if stat.get("mean") is None:
        return "-"
    se = stat.get("stderr")
    return f"{stat['mean']:.3f}" + (f" ± {se:.3f}" if se is not None else "")


def _run_section(k: int, report: dict[str, Any]) -> str:
    run = report["run"]
    e = html.escape
    rows = "".join(
        f"<tr><td class='l'>{e(tid)}</td><td>{t['episodes']}</td><td>{t['status']['ok']}</td>"
        f"<td>{t['status']['agent-error'] + t['status']['infra-error']}</td><td>{e(_stat(t['score']))}</td>"
        f"<td>{e(_stat(t['completion']))}</td><td>{t['steps']}</td><td>{t['invalid_actions']}</td></tr>"
        for tid, t in report["tasks"].items()
    )
    suites = "".join(
        f"<details><summary>{e(name)} summary</summary><pre>{e(json.dumps(value, indent=2))}</pre></details>"
        for name, value in report.items() if name not in ("run", "tasks")
    )
    who = run["model"] or run["agent"]
    return (f"<section id='run-{k}'><h2>{e(run['run_id'])}</h2>"
            f"<p class='meta'>agent {e(run['agent'])} · model {e(str(run['model']))} · seed {run['seed']} · "
            f"config {e(run['config_hash'])} · {e(run['path'])}</p>"
            f"<table><tr><th class='l'>task ({e(who)})</th><th>episodes</th><th>ok</th><th>errors</th><th>score</th>"
            f"<th>completion</th><th>steps</th><th>invalid</th></tr>{rows}</table>{suites}"
            f"<h3>episodes</h3><div id='episodes-{k}'>loading…</div></section>")


def write_site(stores: list[RunStore], out: Path) -> Path:
    """Write the viewer for these runs into ``out``; returns the path of ``index.html``."""
    out.mkdir(parents=True, exist_ok=True)
    for asset in ("viewer.js", "viewer.css"):
        shutil.copyfile(ASSETS / asset, out / asset)
    reports = [build_report(s) for s in stores]
    runs_meta = []
    for k, store in enumerate(stores):
        data = out / "data" / f"r{k}"
        if data.exists():
            shutil.rmtree(data)
        (data / "ep").mkdir(parents=True)
        latest = store.latest_episodes()
        run_root = Path(os.path.relpath(store.path.resolve(), out.resolve())).as_posix() + "/"
        rows = []
        for key in sorted(latest):
            rec = latest[key]
            rows.append([rec.task, rec.index, rec.seed, rec.status, rec.score, rec.completion, rec.steps,
                         rec.invalid_actions, sum(rec.usage.values())])
            target = data / "ep" / rec.task / f"{rec.index}.js"
            target.parent.mkdir(parents=True, exist_ok=True)
            payload = episode_payload(rec, store.read_trajectory(rec), run_root)
            target.write_text(_js("PB.setEpisode", k, rec.task, rec.index, payload))
        (data / "episodes.js").write_text(_js("PB.setEpisodes", k, rows))
        runs_meta.append(reports[k]["run"])
    (out / "data" / "runs.js").write_text(_js("PB.setRuns", runs_meta))
    body = "<h1>Runs</h1>" + "".join(_run_section(k, r) for k, r in enumerate(reports))
    (out / "index.html").write_text(_page("playbench runs", body, ["data/runs.js"], "initIndex();"))
    (out / "episode.html").write_text(
        _page("playbench episode", "<div id='episode'></div>", ["data/runs.js"], "initEpisode();"))
    return out / "index.html"
