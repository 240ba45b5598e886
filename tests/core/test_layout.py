"""The package boundaries the architecture page promises, checked on the source."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "playbench"


def _imports(file: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(file.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _modules_importing(prefix: str) -> list[str]:
    return sorted(str(f.relative_to(SRC)) for f in SRC.rglob("*.py")
                  if any(m == prefix or m.startswith(prefix + ".") for m in _imports(f)))


def test_only_the_library_and_the_runner_itself_import_the_runner() -> None:
    users = [m for m in _modules_importing("playbench.runner") if not m.startswith(("runner/", "api/", "rl/"))]
    assert users == []


def test_the_run_directory_files_are_named_only_in_the_log_package() -> None:
    # the file names and layout live in log/paths.py; everything else asks playbench.log
    named = sorted(str(f.relative_to(SRC)) for f in SRC.rglob("*.py") if not str(f.relative_to(SRC)).startswith("log/")
                   and any(f'"{name}' in f.read_text() for name in ("episodes.jsonl", "run.json", "trajectories/")))
    assert named == []


def test_the_log_package_knows_nothing_above_it() -> None:
    above = ("playbench.runner", "playbench.api", "playbench.cli", "playbench.report", "playbench.suites",
             "playbench.agents", "playbench.models")
    for file in (SRC / "log").glob("*.py"):
        assert not [m for m in _imports(file) if m.startswith(above)], file
