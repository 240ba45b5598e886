"""The static HTML viewer: works from ``file://`` with no network.

Pages are plain HTML written here (every value escaped); the data goes into ``.js`` files that call
``PB.set…`` and are loaded by ``<script src>``, which browsers allow from ``file://`` (``fetch`` is not).
Episodes live in compressed shards (``viewer_data``), read only when one of their episodes is opened, so a
10,000-episode run writes a few dozen files and opens at once.

Pages: ``index.html`` (every run's facts, per-task tables with error bars, suite tables, the episode lists
with filters, sorting and search, and the episodes shared by several runs), ``episode.html#r=&t=&i=``
(one episode's transcript with a step navigator) and ``compare.html#t=&i=`` (the same episode in every run,
side by side). Records are untrusted data: the browser shows every record string with ``textContent``.

The site's folder is the user's, or lies inside a run that may come from anyone: a site goes only into a new
or empty folder, or one holding the marker file a site written before left there (``MARKER``), and nothing in
it is followed through a symbolic link while it is cleared or rewritten.
"""

import contextlib
import html
import io
import os
import secrets
import shutil
import stat
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.records import STATUSES, EpisodeRecord
from playbench.log import RunLog
from playbench.log.durable import describe
from playbench.report.build import build_report, episodes_text, errors_text, summary_hooks, unreported_note
from playbench.report.inert import inert_text
from playbench.report.viewer_data import (
    dumps,
    frame_urls,
    js_call,
    pack_episode,
    picture_kinds,
    read_steps,
    run_facts,
    shard_text,
    shards,
    task_usage,
)

ASSETS = Path(__file__).with_name("viewer_assets")
ASSET_FILES = ("viewer.js", "transcript.js", "pictures.js", "viewer.css")
LABEL_LIMIT = 300  # longest task id, model name or path shown in the overview tables
PROBLEMS_SHOWN = 20  # error lines listed per run on the overview; the rest are counted
PAGES = {"index": "playbench runs", "episode": "playbench episode", "compare": "playbench side by side"}
MARKER = ".playbench-site"  # in every site folder: a later site may replace this folder's files
MARKER_TEXT = "a site written by playbench view; playbench view may rewrite this folder\n"


class SiteWriteError(Exception):
    """Writing the site failed (a read-only place, a full disk, no permission); the message names the file."""


def _label(value: object) -> str:
    """Record text for an HTML page: inert, one line, cut to a readable length, HTML-escaped."""
    return html.escape(inert_text(value, limit=LABEL_LIMIT, one_line=True))


def _page(title: str, body: str, page: str, data: list[str] | None = None) -> str:
    # No inline script at all, so the policy can forbid every script but the site's own files.
    scripts = ["viewer.js", "pictures.js", "transcript.js", "data/live.js", "data/runs.js", "data/pictures.js",
               *(data or [])]
    tags = "".join(f'<script src="{s}"></script>' for s in scripts)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<meta http-equiv='Content-Security-Policy' content=\"default-src 'self' data: blob:; "
            f"style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self' data: blob:; "
            f"object-src 'none'\">"
            f"<link rel='stylesheet' href='viewer.css'></head><body data-page='{page}'>"
            f"<header><b>playbench</b> · <a href='index.html'>runs</a><span id='live'></span></header>"
            f"<main>{body}</main>{tags}</body></html>")


def _stat(stat: dict[str, Any], bounded: bool = False) -> str:
    """``mean ± stderr`` with an error bar (the report's 95% interval) drawn beside it."""
    mean = stat.get("mean")
    if mean is None:
        return "<td data-v=''>-</td>"
    se = stat.get("stderr")
    text = f"{mean:.3f}" + (f" ± {se:.3f}" if se is not None else "")
    lo, hi = (stat.get("ci95") or [None, None])[:2]
    if lo is None or hi is None:
        lo = hi = mean
    top = 1.0 if bounded else 1.15 * max(1.0, abs(hi), abs(lo), abs(mean))  # scores: each row its own scale
    bottom = 0.0 if bounded or min(lo, mean) >= 0 else -top

    def at(x: float) -> float:
        return max(0.0, min(100.0, (x - bottom) / (top - bottom) * 100))

    bar = (f"<span class='eb' title='95% interval {lo:.3f} to {hi:.3f} (n={stat.get('n')})'>"
           f"<span class='ebm' style='width:{at(mean):.1f}%'></span>"
           f"<span class='ebi' style='left:{at(lo):.1f}%;width:{max(at(hi) - at(lo), 0.5):.1f}%'></span></span>")
    return f"<td data-v='{mean!r}'>{html.escape(text)} {bar}</td>"


def _problems(problems: list[str]) -> str:
    if not problems:
        return ""
    items = "".join(f"<li>{html.escape(p)}</li>" for p in problems[:PROBLEMS_SHOWN])
    more = f"<li>… and {len(problems) - PROBLEMS_SHOWN} more</li>" if len(problems) > PROBLEMS_SHOWN else ""
    return f"<ul class='bad problems'>{items}{more}</ul>"


def cost_text(usage: dict[str, int]) -> str:
    """Tokens, calls and cost in words: ``12,345 in · 678 out · 90 cached · 12 calls · $0.0123``."""
    if not usage:
        return "none (no model calls)"
    cached = usage.get("cached_input_tokens", 0) + usage.get("cached_output_tokens", 0)
    parts = [f"{usage.get('input_tokens', 0):,} in", f"{usage.get('output_tokens', 0):,} out"]
    if cached:
        parts.append(f"{cached:,} cached")
    if "cache_read_tokens" in usage:  # the provider's prompt cache (part of the input)
        parts.append(f"{usage['cache_read_tokens']:,} read from the prompt cache{_hit_rate(usage)}")
    parts.append(f"{usage.get('calls', 0):,} calls")
    parts.append(cost_figure(usage) if "cost_micro_usd" in usage else "cost unknown (no price for this model)")
    if usage.get("tokens_unreported"):
        parts.append(unreported_note(usage["tokens_unreported"]))
    return " · ".join(parts)


def cost_figure(usage: dict[str, int]) -> str:
    """``$0.0123``; ``≥ $0.0123`` when some answers carried no token counts (``n/a`` if none was counted).

    ``-`` without a price.
    """
    if "cost_micro_usd" not in usage:
        return "-"
    micro = usage["cost_micro_usd"]
    if usage.get("tokens_unreported"):
        return f"≥ ${micro / 1e6:,.4f}" if micro else "n/a"
    return f"${micro / 1e6:,.4f}"


def _hit_rate(usage: dict[str, int]) -> str:
    """`` (42% of input)``: the share of input tokens the provider's prompt cache served ("" without input)."""
    total = usage.get("input_tokens", 0)
    return f" ({usage.get('cache_read_tokens', 0) / total:.0%} of input)" if total else ""


def duration_text(seconds: float | None) -> str:
    """``1 h 02 min``, ``3 min 05 s`` or ``4.2 s``."""
    if seconds is None:
        return "-"
    if seconds >= 3600:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
    if seconds >= 60:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    return f"{seconds:.1f} s"


def _coverage_text(coverage: dict[str, Any]) -> str:
    """``N of M scheduled episodes recorded``, always with both numbers, and the report's note when partial."""
    text = f"{coverage['recorded']} of {coverage['scheduled']} scheduled episodes recorded"
    if coverage["complete"] and not coverage["unscheduled"]:
        return text + " (complete)"
    return str(coverage["note"])


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "-"


def _suite_tables(report: dict[str, Any]) -> str:
    """Each suite's own tables, as the terminal report draws them (rich tables rendered to text)."""
    from rich.console import Console
    from rich.markup import escape

    def safe(value: Any) -> Any:
        if isinstance(value, str):
            return escape(inert_text(value, limit=LABEL_LIMIT, one_line=True))
        if isinstance(value, dict):
            return {safe(k) if isinstance(k, str) else k: safe(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(safe(v) for v in value)
        return value

    out = []
    for name, summary in report.items():
        if name in ("run", "tasks"):
            continue
        hooks = summary_hooks(name)
        if hooks is None:
            continue
        renderables = hooks.render(safe(summary))
        if not renderables:
            continue
        console = Console(file=io.StringIO(), width=140, record=True, color_system=None)
        for renderable in renderables:
            console.print(renderable)
        out.append(f"<details open class='suite'><summary>{_label(name)}: the paper's tables</summary>"
                   f"<pre class='table'>{html.escape(console.export_text())}</pre></details>")
    return "".join(out)


def _facts(report: dict[str, Any], facts: dict[str, Any]) -> str:
    run = report["run"]
    e = _label
    model = run["model"]
    versions = facts["versions"]
    main = ", ".join(f"{k} {versions[k]}" for k in ("playbench", "python") if k in versions)
    rest = ", ".join(f"{k} {v}" for k, v in versions.items() if k not in ("playbench", "python"))
    rows = [
        ("model", e(model) if model else f"none: the reference agent {e(run['agent'])} plays without one"),
        ("agent", e(run["agent"])),
        ("strategy", e(_params(facts["agent_params"]))),
        ("model settings", e(_params(facts["model_params"]))),
        ("seed", str(run["seed"])),
        ("episodes", html.escape(_coverage_text(run["episodes"]))),
        ("tokens and cost", html.escape(cost_text(facts["usage"]))),
        ("duration", html.escape(f"{duration_text(facts['wall_s'])} wall, {duration_text(facts['episode_s'])} "
                                 f"of episode time; started ") + e(facts["created_at"])
         + (f" · resumed {facts['resumes']}×" if facts["resumes"] else "")),
        ("versions", e(main) + (f" <details class='inline'><summary>more</summary>{e(rest)}</details>"
                                if rest else "")),
        ("config", e(run["config_hash"])),
        ("folder", e(run["path"])),
    ]
    return "<table class='facts'>" + "".join(f"<tr><th class='l'>{k}</th><td class='l'>{v}</td></tr>"
                                             for k, v in rows) + "</table>"


def _run_section(k: int, report: dict[str, Any], facts: dict[str, Any], usage: dict[str, dict[str, int]],
                 problems: list[str]) -> str:
    run = report["run"]
    e = _label
    rows = []
    for tid, t in report["tasks"].items():
        u = usage.get(tid, {})
        tokens = u.get("input_tokens", 0) + u.get("output_tokens", 0)
        cost = cost_figure(u)
        rows.append(
            f"<tr><td class='l'>{e(tid)}</td><td data-v='{t['episodes']}'>{episodes_text(t)}</td>"
            f"<td>{t['status'].get('ok', 0)}</td>"
            f"<td data-v='{t['errors']}'>{errors_text({s: t['status'].get(s, 0) for s in STATUSES})}</td>"
            f"{_stat(t['score'])}{_stat(t['completion'], bounded=True)}<td>{t['steps']}</td>"
            f"<td>{t['invalid_actions']}</td><td data-v='{tokens}'>{tokens:,}{_hit_rate(u) if 'cache_read_tokens' in u else ''}</td>"
            f"<td data-v='{u.get('cost_micro_usd', '')}'>{cost}</td></tr>")
    coverage = run["episodes"]
    flag = "meta" if coverage["complete"] and not coverage["unscheduled"] else "bad"
    who = run["model"] or run["agent"]
    return (f"<section id='run-{k}' class='run'><h2>{e(run['run_id'])}</h2>{_facts(report, facts)}"
            f"<p class='{flag} coverage'>{html.escape(coverage['note'])}</p>{_problems(problems)}"
            f"<table class='tasks sortable'><thead><tr><th class='l'>task ({e(who)})</th><th>episodes</th>"
            f"<th>ok</th><th>errors</th><th title='mean ± standard error; the bar: mean and 95% interval, on a scale of its own row'>score ± SE</th><th title='mean ± standard error; the bar: mean and 95% interval on 0 to 1'>completion ± SE</th><th>steps</th><th>invalid</th>"
            f"<th>tokens</th><th>cost</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"{_suite_tables(report)}"
            f"<h3>episodes</h3><div id='episodes-{k}' class='episodes'>loading…</div></section>")


def _run_line(k: int, report: dict[str, Any], facts: dict[str, Any]) -> str:
    """One row of the table of runs at the top of the overview."""
    run, usage, e = report["run"], facts["usage"], _label
    tokens = usage.get("input_tokens", 0) + usage.get("output_tokens", 0)
    cost = cost_figure(usage)
    cov = run["episodes"]
    return (f"<tr><td>{k}</td><td class='l'><a href='#run-{k}'>{e(run['run_id'])}</a></td>"
            f"<td class='l'>{e(run['model'] or '-')}</td><td class='l'>{e(run['agent'])}</td><td>{run['seed']}</td>"
            f"<td data-v='{cov['recorded']}'>{cov['recorded']} of {cov['scheduled']}</td><td>{tokens:,}</td>"
            f"<td data-v='{usage.get('cost_micro_usd', '')}'>{cost}</td>"
            f"<td data-v='{facts['wall_s'] or ''}'>{duration_text(facts['wall_s'])}</td></tr>")


def _write_run(k: int, store: RunLog, records: list[EpisodeRecord], out: Path) -> list[str]:
    """Write one run's episode list and shards (``data/r<k>/``); returns the problems met, one per line."""
    data = _fresh_dir(out / "data" / f"r{k}")
    rows: list[list[Any]] = []
    problems: list[str] = []
    tasks: dict[str, int] = {}  # each row names its task by number: ids are written once

    def packed() -> Any:
        for rec in records:
            steps, errors = read_steps(store, rec)
            frames, frame_errors = frame_urls(store, steps, out)
            errors += frame_errors
            name = inert_text(rec.task, limit=LABEL_LIMIT, one_line=True)
            problems.extend(f"{name} #{rec.index}: {p}" for p in errors)
            tokens = rec.usage.get("input_tokens", 0) + rec.usage.get("output_tokens", 0)
            rows.append([tasks.setdefault(rec.task, len(tasks)), rec.index, rec.seed, rec.status, rec.score,
                         rec.completion, rec.steps, rec.invalid_actions, tokens,
                         None if rec.usage.get("tokens_unreported") else rec.usage.get("cost_micro_usd")])
            yield dumps(pack_episode(rec, steps, frames, errors))

    start = 0
    for n, group in enumerate(shards(packed())):
        _write(data / f"s{n}.js", shard_text(k, n, group))
        for j in range(len(group)):
            rows[start + j] += [n, j]
        start += len(group)
    _write(data / "episodes.js", js_call("PB.setEpisodes", k, list(tasks), rows))
    return problems


def write_site(runs: list[RunLog], out: Path, live: bool = False) -> Path:
    """Write the viewer for these runs into ``out``; returns the path of ``index.html``.

    Every file written is below ``out``; records are read only inside their own run directories. With
    ``live`` the pages re-read ``data/live.js`` every 1.5 s and reload when it changes. ``out`` must be new,
    empty or a site written before (``claim_site``: else PlaybenchError); a failed write is a SiteWriteError.
    """
    claim_site(out)
    data = _real_dir(out / "data")
    with os.scandir(data) as entries:
        for entry in list(entries):  # runs of an earlier site written here, past this site's last run
            if entry.name.startswith("r") and entry.name[1:].isdigit() and int(entry.name[1:]) >= len(runs):
                _remove(Path(entry.path))
    for asset in ASSET_FILES:
        _write(out / asset, (ASSETS / asset).read_bytes())
    sections, summaries, lines = [], [], []
    tasks: dict[str, None] = {}
    for k, store in enumerate(runs):
        records = store.episodes()
        tasks.update(dict.fromkeys(r.task for r in records))
        report = build_report(store)
        facts = run_facts(store, records)
        problems = _write_run(k, store, records, out)
        sections.append(_run_section(k, report, facts, task_usage(records), problems))
        lines.append(_run_line(k, report, facts))
        run = report["run"]
        summaries.append({"run_id": run["run_id"], "model": run["model"], "agent": run["agent"],
                          "seed": run["seed"], "note": run["episodes"]["note"], "label": facts["label"]})
    _write(out / "data" / "runs.js", js_call("PB.setRuns", summaries, list(STATUSES), live))
    _write(out / "data" / "pictures.js", js_call("PB.setPictures", picture_kinds(list(tasks))))
    if not live or not _regular(out / "data" / "live.js"):
        write_live(out, version=0, done=not live)
    search = ("<section class='search'><h2>Search</h2><form id='search'><input id='search-q' type='search' "
              "placeholder='text in observations, outputs, messages, errors'> <button>search</button></form>"
              "<div id='search-out'></div></section>")
    table = ("<table class='runs sortable'><thead><tr><th>#</th><th class='l'>run</th><th class='l'>model</th>"
             "<th class='l'>agent</th><th>seed</th><th>episodes</th><th>tokens</th><th>cost</th><th>wall time</th>"
             f"</tr></thead><tbody>{''.join(lines)}</tbody></table>")
    body = (f"<h1>Runs</h1>{table}{search}<section id='shared' class='shared'></section>{''.join(sections)}")
    lists = [f"data/r{k}/episodes.js" for k in range(len(runs))]  # the overview loads them with the page
    for page, title in PAGES.items():
        content = body if page == "index" else f"<div id='{page}'></div>"
        _write(out / f"{page}.html", _page(title, content, page, lists if page == "index" else None))
    return out / "index.html"


def write_live(out: Path, version: int, done: bool) -> None:
    """``data/live.js``: the site's version (pages reload when it grows) and whether the run has ended."""
    _write(_real_dir(out / "data") / "live.js", js_call("PB.setLive", version, done))


def claim_site(out: Path) -> None:
    """Make ``out`` a site folder: create it, or accept it empty or marked by an earlier site; then mark it.

    Refused in one line (PlaybenchError): ``out`` a symbolic link, not a folder, or a folder with files in
    it and no marker (a regular file, not a link), which may be anyone's, so nothing in it is touched.
    """
    try:
        mode = os.lstat(out).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise SiteWriteError(describe(exc, out)) from None
    if mode is not None and stat.S_ISLNK(mode):
        raise PlaybenchError(f"{out} is a symbolic link; give the folder itself (or a new one) as the site's folder")
    if mode is not None and not stat.S_ISDIR(mode):
        raise PlaybenchError(f"{out} is not a folder; choose an empty or new folder")
    try:
        if mode is None:
            out.mkdir(parents=True)
        elif _has_entries(out) and not _regular(out / MARKER):
            raise PlaybenchError(f"{out} is not empty and was not written by playbench view; "
                                 "choose an empty or new folder")
    except OSError as exc:
        raise SiteWriteError(describe(exc, out)) from None
    _write(out / MARKER, MARKER_TEXT)  # first, so a site cut short (a full disk) can still be rewritten


def _has_entries(folder: Path) -> bool:
    with os.scandir(folder) as entries:
        return any(True for _ in entries)


def _regular(path: Path) -> bool:
    """``path`` is a regular file itself (a symbolic link is not, whatever it points to)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _remove(path: Path) -> None:
    """Delete ``path``: a folder with everything in it, anything else (a symbolic link itself) by unlinking.

    ``shutil.rmtree`` follows no link inside the folder (on Linux it works through folder descriptors).
    """
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise SiteWriteError(describe(exc, path)) from None


def _real_dir(path: Path) -> Path:
    """``path`` as a real folder of the site: a link or file in its place is removed (never followed)."""
    try:
        mode: int | None = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise SiteWriteError(describe(exc, path)) from None
    if mode is not None and not stat.S_ISDIR(mode):
        _remove(path)
        mode = None
    if mode is None:
        try:
            path.mkdir()
        except OSError as exc:
            raise SiteWriteError(describe(exc, path)) from None
    return path


def _fresh_dir(path: Path) -> Path:
    """``path`` as a new, empty real folder (whatever was there removed, links never followed)."""
    _remove(path)
    return _real_dir(path)


def _write(path: Path, content: str | bytes) -> None:
    """Write a site file whole (a new name, then renamed): a page reading it meanwhile sees old or new.

    The new name is created exclusively, and the rename replaces a link at ``path`` rather than its target.
    """
    data = content.encode("utf-8") if isinstance(content, str) else content
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        with open(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise SiteWriteError(describe(exc, path)) from None

