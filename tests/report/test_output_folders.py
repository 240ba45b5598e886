"""Where ``view``, ``eval --view`` and ``export`` write: only into what they wrote themselves, never through
a symbolic link, and a read-only run or an unwritable output is one line on stderr, never a traceback.

Every command is a real ``playbench`` subprocess on a real run. A read-only place is a read-only bind mount
when the tests run as root (root writes through any permission bits) and a folder without write permission
otherwise.
"""

import contextlib
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import only_run_dir, run_cli

FOREIGN = "is not empty and was not written by playbench view; choose an empty or new folder"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A real two-episode Hanoi run (tests that change it work on a copy)."""
    log = tmp_path_factory.mktemp("log")
    res = run_cli("eval", "smartplay/hanoi-3", "--agent", "random", "--episodes", "2", "--log-dir", str(log),
                  "--quiet")
    assert res.returncode == 0, res.stderr
    return only_run_dir(log)


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str | None]]:
    """Every entry under ``root`` (links not followed): its kind and its bytes or link target."""
    out: dict[str, tuple[str, bytes | str | None]] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(dirpath) / name
            key = str(path.relative_to(root))
            if path.is_symlink():
                out[key] = ("link", os.readlink(path))
            elif path.is_dir():
                out[key] = ("dir", None)
            else:
                out[key] = ("file", path.read_bytes())
    return out


def one_line(stderr: str) -> str:
    """The single line a refusal or failure prints (no traceback, nothing else)."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def foreign_folder(root: Path) -> Path:
    """A folder of someone's own files, laid out the way a site is (``data/r0``, ``index.html``)."""
    (root / "data" / "r0").mkdir(parents=True)
    (root / "data" / "r0" / "thesis.tex").write_text("chapter one\n")
    (root / "index.html").write_text("<p>my homepage</p>\n")
    (root / "viewer.js").write_text("// mine\n")
    (root / "notes.txt").write_bytes(b"\x00\x01 raw bytes\n")
    return root


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` cannot be written in by this user while the block runs (skipped when it cannot be made so)."""
    if os.geteuid() == 0:
        if shutil.which("mount") is None:
            pytest.skip("running as root, where chmod does not stop writes, and there is no mount command")
        bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True, text=True)
        if bound.returncode != 0:
            pytest.skip(f"running as root, where chmod does not stop writes, and a bind mount is not "
                        f"permitted here: {bound.stderr.strip()}")
        try:
            ro = subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], capture_output=True, text=True)
            if ro.returncode != 0:
                pytest.skip(f"a bind mount cannot be made read-only here: {ro.stderr.strip()}")
            with pytest.raises(OSError):
                (folder / "probe").write_text("x")
            yield
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    modes = {}
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            modes[path] = path.stat().st_mode
            path.chmod(stat.S_IMODE(modes[path]) & ~0o222)
    try:
        with pytest.raises(OSError):
            (folder / "probe").write_text("x")
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


# --- view -----------------------------------------------------------------------------------------------


def test_view_refuses_a_foreign_folder_and_touches_nothing(run, tmp_path):
    folder = foreign_folder(tmp_path / "mine")
    before = snapshot(folder)
    res = run_cli("view", str(run), "-o", str(folder))
    assert res.returncode == 2, res.stdout + res.stderr
    assert one_line(res.stderr) == f"error: {folder} {FOREIGN}"
    assert snapshot(folder) == before


def test_view_live_and_eval_view_refuse_a_foreign_folder(run, tmp_path):
    folder = foreign_folder(tmp_path / "mine")
    before = snapshot(folder)
    res = run_cli("view", str(run), "--live", "--interval", "0.2", "-o", str(folder), timeout=60)
    assert res.returncode == 2, res.stdout + res.stderr
    assert one_line(res.stderr) == f"error: {folder} {FOREIGN}"
    assert snapshot(folder) == before
    # eval --view writes RUN/view: a resumed run whose view folder holds someone's files keeps them
    copy = shutil.copytree(run, tmp_path / "run")
    foreign_folder(copy / "view")
    before = snapshot(copy / "view")
    res = run_cli("eval", "--resume", str(copy), "--view", "--quiet")
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    assert f"error: {copy / 'view'} {FOREIGN}" in res.stderr.splitlines()
    assert snapshot(copy / "view") == before


def test_view_rewrites_its_own_site_and_only_that(run, tmp_path):
    site = tmp_path / "site"
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder in (site, empty):  # a new folder and an empty one are both taken
        res = run_cli("view", str(run), "-o", str(folder))
        assert res.returncode == 0, res.stderr
        marker = folder / ".playbench-site"
        assert marker.is_file() and not marker.is_symlink() and marker.read_text().strip()
    (site / "index.html").write_text("stale")
    res = run_cli("view", str(run), "-o", str(site))
    assert res.returncode == 0, res.stderr
    assert Path(res.stdout.strip()) == (site / "index.html").resolve()
    assert "stale" not in (site / "index.html").read_text()
    # a marker that is a link (to a marker elsewhere) does not make a folder a site
    other = foreign_folder(tmp_path / "other")
    (other / ".playbench-site").symlink_to(site / ".playbench-site")
    before = snapshot(other)
    res = run_cli("view", str(run), "-o", str(other))
    assert res.returncode == 2 and one_line(res.stderr) == f"error: {other} {FOREIGN}"
    assert snapshot(other) == before
    # the site's folder itself may not be a link
    link = tmp_path / "link"
    link.symlink_to(site, target_is_directory=True)
    res = run_cli("view", str(run), "-o", str(link))
    assert res.returncode == 2 and "symbolic link" in one_line(res.stderr)


def test_links_inside_a_site_lead_nothing_outside(run, tmp_path):
    site = tmp_path / "site"
    assert run_cli("view", str(run), str(run), "-o", str(site)).returncode == 0  # data/r0 and data/r1
    outside = foreign_folder(tmp_path / "outside")
    (outside / "data" / "r1").mkdir()
    (outside / "data" / "r1" / "kept.txt").write_text("kept\n")
    shutil.rmtree(site / "data")
    (site / "data").symlink_to(outside / "data", target_is_directory=True)
    (site / "index.html").unlink()
    (site / "index.html").symlink_to(outside / "index.html")
    (site / "viewer.js").unlink()
    (site / "viewer.js").symlink_to(outside / "viewer.js")
    before = snapshot(outside)
    res = run_cli("view", str(run), "-o", str(site))  # one run now: data/r1 is a stale run to clear
    assert res.returncode == 0, res.stderr
    assert snapshot(outside) == before
    assert not (site / "data").is_symlink() and (site / "data" / "r0" / "episodes.js").is_file()
    assert not (site / "data" / "r1").exists()
    assert not (site / "index.html").is_symlink() and "playbench" in (site / "index.html").read_text()


# --- export ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_export_replaces_only_its_own_table(run, tmp_path, fmt):
    pd = pytest.importorskip("pandas")
    mine = tmp_path / f"grades.{fmt}"
    grades = pd.DataFrame({"name": ["ada"], "grade": [1]})
    {"csv": lambda p: grades.to_csv(p, index=False), "parquet": lambda p: grades.to_parquet(p, index=False),
     "jsonl": lambda p: grades.to_json(p, orient="records", lines=True)}[fmt](mine)
    kept = mine.read_bytes()
    res = run_cli("export", str(run), "--format", fmt, "-o", str(mine))
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"not a {fmt} table written by playbench export" in one_line(res.stderr)
    assert mine.read_bytes() == kept
    target = tmp_path / f"episodes.{fmt}"
    target.write_bytes(b"")  # an empty file holds nothing to lose
    for _ in range(2):  # and an earlier export is replaced
        res = run_cli("export", str(run), "--format", fmt, "-o", str(target))
        assert res.returncode == 0, res.stderr
    read = {"csv": pd.read_csv, "parquet": pd.read_parquet,
            "jsonl": lambda p: pd.read_json(p, lines=True)}[fmt]
    assert len(read(target)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, target.name])  # no temporary left
    # a table of another format is not replaced either
    other = "csv" if fmt != "csv" else "jsonl"
    res = run_cli("export", str(run), "--format", other, "-o", str(target))
    assert res.returncode == 2 and len(read(target)) == 2


def test_export_follows_no_link(run, tmp_path):
    outside = tmp_path / "outside.csv"
    outside.write_text("name,grade\n")
    link = tmp_path / "link.csv"
    link.symlink_to(outside)
    copy = shutil.copytree(run, tmp_path / "run")
    (copy / "export.csv").symlink_to(outside)  # a run from elsewhere, its default export a link
    for args in (["export", str(run), "-o", str(link)], ["export", str(copy)]):
        res = run_cli(*args)
        assert res.returncode == 2, res.stdout + res.stderr
        assert "symbolic link" in one_line(res.stderr)
        assert outside.read_text() == "name,grade\n"


def test_export_balrog_refuses_a_link_and_a_foreign_folder(run, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "link").symlink_to(empty, target_is_directory=True)
    res = run_cli("export", str(run), "--format", "balrog", "-o", str(tmp_path / "link"))
    assert res.returncode == 2 and "symbolic link" in one_line(res.stderr)
    folder = foreign_folder(tmp_path / "mine")
    before = snapshot(folder)
    res = run_cli("export", str(run), "--format", "balrog", "-o", str(folder))
    assert res.returncode == 2 and "not an empty folder" in one_line(res.stderr)
    assert snapshot(folder) == before and list(empty.iterdir()) == []


# --- read-only runs and unwritable outputs ----------------------------------------------------------------


def test_read_only_run_is_viewed_and_exported_elsewhere(run, tmp_path):
    pytest.importorskip("pandas")
    copy = shutil.copytree(run, tmp_path / "run")
    with read_only(copy):
        before = snapshot(copy)
        for args in (["view", str(copy)], ["export", str(copy)], ["export", str(copy), "--format", "balrog"]):
            res = run_cli(*args)
            assert res.returncode == 2, res.stdout + res.stderr
            line = one_line(res.stderr)
            assert f"{copy} is read-only" in line and "--output (-o)" in line, line
        res = run_cli("view", str(copy), "-o", str(tmp_path / "site"))
        assert res.returncode == 0, res.stderr
        assert (tmp_path / "site" / "data" / "r0" / "episodes.js").is_file()
        res = run_cli("export", str(copy), "-o", str(tmp_path / "rows.csv"))
        assert res.returncode == 0, res.stderr
        assert (tmp_path / "rows.csv").read_text().count("\n") == 3
        assert snapshot(copy) == before


def test_unwritable_output_is_one_line(run, tmp_path):
    pytest.importorskip("pandas")
    place = tmp_path / "place"
    (place / "empty-site").mkdir(parents=True)
    with read_only(place):
        for args, path in ((["view", str(run), "-o", str(place / "site")], place / "site"),
                           (["view", str(run), "-o", str(place / "empty-site")], place / "empty-site"),
                           (["export", str(run), "-o", str(place / "rows.csv")], place / "rows.csv")):
            res = run_cli(*args)
            assert res.returncode == 1, res.stdout + res.stderr
            line = one_line(res.stderr)
            assert line.startswith(f"error: cannot write {path}"), line
            assert "Read-only file system" in line or "Permission denied" in line, line
        assert sorted(p.name for p in place.iterdir()) == ["empty-site"]
