"""``playbench verify``: re-play a run (or a suite's folder: a BALROG submission) and say whether its records hold.

Exit codes: 0 when nothing differs, every episode run.json schedules is recorded and every scored episode was
re-played; 1 when an episode (or a folder's summary) differs; 3 when nothing differs but the run is not
complete: scheduled episodes have no record (a failure dropped, or a run not finished) or some scored episodes
could not be checked (a score nobody vouched for); 2 for a folder that is neither a run nor a submission, or
one that cannot be read. Every text shown comes from records, so it goes through ``safe_text``.
"""

import sys
from collections import defaultdict

import click

from playbench.api.verify import VerifyResult, verify
from playbench.cli.common import safe_text

#: how many episodes a group of not-verifiable ones names before "and N more"
NAMED = 5


def lines(result: VerifyResult) -> list[str]:
    """The report: counts, the first difference of each differing episode, why the others were not checked."""
    head = (f"{result.verified} verified, {result.differing} differing, {result.not_verifiable} not verifiable"
            f" ({len(result.findings)} episodes of {result.label} "
            f"{safe_text(result.path)})")
    out = [head]
    for finding in result.findings:
        if finding.verdict == "differs" and finding.difference is not None:
            out.append(f"differs: {safe_text(finding.name)} {safe_text(finding.difference.describe(), one_line=True)}")
    out.extend(f"differs: {safe_text(line, one_line=True)}" for line in result.folder_differences)
    if result.missing:
        out.append(f"missing: {_named(result.missing_named, result.missing)}: scheduled in run.json, not recorded "
                   f"({result.missing} of {result.scheduled} scheduled)")
    why: dict[str, list[str]] = defaultdict(list)
    for finding in result.findings:
        if finding.verdict == "not-verifiable":
            why[finding.reason or "unknown"].append(finding.name)
    for reason, names in why.items():
        out.append(f"not verifiable: {_named(names[:NAMED], len(names))}: {safe_text(reason, one_line=True)}")
    out.extend(f"note: {safe_text(note, one_line=True)}" for note in result.notes)
    if not result.findings:
        out.append("note: the folder holds no episode")
    elif not result.verified and not result.differing:
        out.append("note: no episode could be re-played, so nothing was verified")
    if result.ok and result.unchecked:
        out.append(f"not verified: {result.unchecked} scored episode(s) could not be checked, so their scores rest "
                   "on the records alone (exit 3)")
    if result.ok and result.missing:
        out.append(f"not verified: {result.missing} scheduled episode(s) have no record, so the run's figures may "
                   "leave failures out (exit 3)")
    return out


def _named(names: list[str], count: int) -> str:
    """``a, b and 7 more``: the names shown, then how many others there are."""
    shown = ", ".join(safe_text(n) for n in names)
    return shown + (f" and {count - len(names)} more" if count > len(names) else "")


def _settings(values: tuple[str, ...]) -> dict[str, str]:
    """``-T KEY=VALUE`` pairs as a dict; a malformed or repeated one is refused in one line."""
    out: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.UsageError(f"-T {item[:60]!r}: expected KEY=VALUE (e.g. levels=PATH)")
        if key.strip() in out:
            raise click.UsageError(f"-T {key.strip()[:40]} given twice")
        out[key.strip()] = value
    return out


@click.command("verify")
@click.argument("run", type=click.Path())
@click.option("-T", "settings", multiple=True, metavar="KEY=VALUE",
              help="What a suite's folder needs re-playing: a BALROG row's Boxoban episodes, -T levels=PATH (the "
                   "official levels, a deepmind/boxoban-levels checkout); its NetHack episodes played on a clang "
                   "build, -T nethack=PATH (that build's libnethack.so).")
def command(run: str, settings: tuple[str, ...]) -> None:
    """Re-play RUN's episodes from their seeds and actions and check every recorded value.

    RUN is a run directory (local, resumed, Ray or merged) or a folder of a suite's format, such as a BALROG
    submission folder written by ``playbench export --format balrog``. Exit code 1 when anything differs, 3 when scheduled episodes have
    no record or scored episodes could not be checked.
    """
    result = verify(run, _settings(settings))
    for line in lines(result):
        click.echo(line)
    sys.exit(1 if not result.ok else 0 if result.complete else 3)
