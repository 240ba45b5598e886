"""A BALROG folder's episodes as ``eval --instances`` plays them again: each one's seed and what else fixed it.

BALROG's evaluator resets every environment with the episode's seed, but the seed alone fixes only BabyAI's
and Baba Is AI's levels. For the others the leaderboard re-play (``leaderboard_games``, ``leaderboard_nle``,
``leaderboard_crafter``) knows what made the instance at the row's date, and an instance carries it as reset
options (``Instance.options``), which the run's games are prepared and reset with:

- NetHack and MiniHack: ``{"balrog_seeding": true, "clock": DATE}``: NetHack seeded with the episode's seed
  itself, its clock at noon UTC of the row's date (``metadata.yaml``, else the folder name). The hour of the
  original run is not recorded: a night, a moon phase or Friday the 13th that differed then would part them,
  as it would part ``verify``'s re-play. So each is confirmed by its first recorded step, played: an episode
  whose text differs there, or without a steps table, is refused.
- TextWorld: ``{"game": K}``: the position of the game BALROG's per-process counter gave the episode
  (``leaderboard_games.textworld_game``: the worker in ``process_num``, its earlier episodes of the task).
- Crafter: ``{"world": W}``: the world seed the worker's NumPy state gave ``crafter.Env(seed=None)``, found
  among the draws after the worker's recorded seeds (``leaderboard_crafter.crafter_candidates``) as the one
  whose world gives the episode's first recorded steps. A worker's first episode drew from a clock-made seed,
  recorded nowhere: that instance is refused with the reason.
- Boxoban: the level was drawn over files in ``os.listdir`` order (machine-dependent), so it is found by the
  map the episode's first recorded observation shows (an LLM row's text holds it; a VLM row's does not): the
  one official level under the task's ``-T levels=PATH`` whose walls, goals and start it shows. The options:
  NetHack's, and ``{"level": "FILE;N"}``. Without such a folder, a map or a single such level: refused.

A file playbench writes (``export --format balrog``, named in its ``summary.json`` mark) was seeded by playbench:
its seed alone fixes its instance, as in the run it came from.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playbench.core.datafiles import read_data_text
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.core.suite import Instance
from playbench.core.verdict import NotVerifiable
from playbench.suites.balrog import leaderboard, submission
from playbench.suites.balrog.facts import TASKS, BalrogTask
from playbench.suites.balrog.nle.boxoban.level import Level, level_files, parse_level


@dataclass
class _File:
    """One episode file of the folder, as read."""

    relative: str
    env: str
    row: BalrogTask
    data: dict[str, Any]
    index: int  # from ``_run_<NN>`` (-1: not named so)
    seed: int | None


def instances(folder: Path, tasks: Mapping[str, Mapping[str, Any]]) -> list[Instance]:
    """The folder's episodes of the BALROG tasks ``tasks`` (id -> its ``-T`` values), each task's in episode order.

    ``FormatHooks.instances``. Files of other tasks are left out (the caller refuses a task the folder lacks);
    every file is read as ``read_episodes`` reads it (a link refused, a bad file one line).
    """
    found = by_file(Path(folder), tasks)
    order = sorted(found.items(), key=lambda item: _index(item[0]))  # stable: each task's in index order
    return [instance for _, instance in order]


def by_file(folder: Path, tasks: Mapping[str, Mapping[str, Any]]) -> dict[str, Instance]:
    """Each episode file of the folder's tasks (``tasks``: id -> ``-T`` values) -> its instance, in file order."""
    files = _read(folder)
    seeded = submission.seeded_episodes(folder)
    row = _row(folder, files)  # of every file: a worker's other episodes count
    asked = [file for file in files if file.row.id in tasks]
    levels = _boxoban_levels(folder, [f for f in asked if f.row.kind == "boxoban" and f.relative not in seeded], tasks)
    found: dict[str, Instance] = {}
    for file in asked:
        options, problem = None, _file_problem(file)
        if problem is None and file.relative not in seeded:
            options, problem = _what_fixes(folder, file, row, levels.get(file.relative), tasks[file.row.id])
        tokens = [n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None
                  for n in (file.data.get("input_tokens"), file.data.get("output_tokens"))]
        found[file.relative] = Instance(file.row.id, file.seed, problem, input_tokens=tokens[0],
                                        output_tokens=tokens[1], options=options)
    return found


def _index(relative: str) -> int:
    named = submission.RUN_INDEX.search(relative)
    return int(named.group(1)) if named else -1


def _read(folder: Path) -> list[_File]:
    rows = {submission.original_name(row.id): row for row in TASKS}
    files: list[_File] = []
    for env, relatives in submission.episode_files(folder).items():
        for relative in relatives:
            data = submission.read_episode(folder, relative)
            row = rows.get((env, str(data.get("task"))))
            if row is None:
                continue
            seed = data.get("seed")
            files.append(_File(relative, env, row, data, _index(relative),
                               seed if isinstance(seed, int) and not isinstance(seed, bool) else None))
    return files


def _row(folder: Path, files: list[_File]) -> leaderboard.Row:
    """What the folder's episodes share: its date and which worker played which episode."""
    from playbench.suites.balrog.verify import _row_date  # the date verify re-plays the row at

    row = leaderboard.Row(folder, _row_date(folder), "quoted")
    for file in files:
        process = file.data.get("process_num")
        if file.index >= 0 and file.seed is not None and isinstance(process, str):
            row.processes.setdefault(process, []).append((file.env, str(file.data.get("task")), file.index, file.seed))
    return row


def _file_problem(file: _File) -> str | None:
    if file.index < 0:
        return f"its file {file.relative.rpartition('/')[2][:80]} does not say which episode it is (_run_<NN>)"
    if file.seed is None:
        return "its episode file holds no seed"
    return None


def _what_fixes(folder: Path, file: _File, row: leaderboard.Row, level: tuple[str | None, str | None] | None = None,
                values: Mapping[str, Any] | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """(the reset options that make BALROG's instance, None) or (None, why playbench cannot make it).

    ``level``: a Boxoban episode's ``(level id, None)`` or ``(None, why none)`` (``_boxoban_levels``); ``values``:
    its task's ``-T`` values (Boxoban's ``levels``).
    """
    if file.env in ("nle", "minihack"):
        if row.date is None:
            return None, "the row names no date (metadata.yaml, folder name): NetHack's game depends on it"
        options: dict[str, Any] = {"balrog_seeding": True, "clock": row.date}
        if file.row.kind == "boxoban":
            level_id, why = level or (None, submission.seed_problem(file.row))
            if level_id is None:
                return None, why
            options["level"] = level_id
        problem = _first_step_problem(folder, file, row, options, values)
        return (None, problem) if problem else (options, None)
    if file.env == "textworld":
        from playbench.suites.balrog.leaderboard_games import textworld_game

        held = sum(1 for episodes in row.processes.values() for env, *_ in episodes if env == "textworld")
        stated = _stated_episodes(folder, "textworld")
        if stated is not None and stated > held:
            return None, (f"the folder holds {held} of the {stated} TextWorld episodes its summary counts: the game "
                          "of BALROG's per-process counter follows from every episode its worker played")
        try:
            return {"game": textworld_game(_played(file, []), row)}, None
        except NotVerifiable as exc:
            return None, str(exc)
    if file.env == "crafter":
        return _crafter(folder, file, row)
    return None, submission.seed_problem(file.row)


def _stated_episodes(folder: Path, env: str) -> int | None:
    """The episodes of ``env`` the folder's ``<env>/<env>_summary.json`` counts (None: it states none)."""
    try:
        stated = submission.read_episode(folder, f"{env}/{env}_summary.json").get("episodes_played")
    except (PlaybenchError, OSError):
        return None
    return stated if isinstance(stated, int) and not isinstance(stated, bool) else None


def _played(file: _File, steps: list[leaderboard.Step], early: bool = False) -> leaderboard.Played:
    assert file.seed is not None
    return leaderboard.Played(file.env, str(file.data.get("task")), file.row.id, file.row.id, file.index, file.seed,
                              file.data, steps, early)


class Claims:
    """Checks a run's claim to have played a folder's episode again: the options it was reset with make it.

    What ``compare`` pairs a run's record with reset options by (``compared.episodes``): the folder's episode
    of that task and seed is the one the record played when its options are those that make its instance
    (a Crafter world: one that gives its first recorded steps). The folder is read once, on the first claim.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._read: tuple[list[_File], leaderboard.Row, frozenset[str]] | None = None

    def episode(self, task: str, seed: int, options: dict[str, Any], instance: dict[str, Any]) -> str | None:
        """The path of the folder's episode file the record played, else None.

        The record's task, seed and options, and its ``instance`` (a Boxoban level's rows, shown by its map).
        """
        if self._read is None:
            files = _read(self.folder)
            self._read = files, _row(self.folder, files), submission.seeded_episodes(self.folder)
        files, row, seeded = self._read
        for file in files:
            if file.row.id != task or file.seed != seed or file.relative in seeded or _file_problem(file):
                continue
            world, level = options.get("world"), options.get("level")
            if file.env == "crafter" and isinstance(world, int) and not isinstance(world, bool):
                made, _ = _crafter(self.folder, file, row, [world])
            else:
                levels = instance.get("levels_path")  # the official levels the record's Boxoban level came from
                made, _ = _what_fixes(self.folder, file, row, (level, None) if self._shows(file, instance) else None,
                                      {"levels": levels} if isinstance(levels, str) else {})
            return file.relative if made == options else None
        return None

    def _shows(self, file: _File, instance: dict[str, Any]) -> bool:
        """Whether a Boxoban episode's first recorded map shows the level the record's instance names."""
        rows = instance.get("level")
        if file.row.kind != "boxoban" or not isinstance(rows, list) or not all(isinstance(r, str) for r in rows):
            return False
        try:
            steps, _ = leaderboard.read_steps(self.folder, file.relative.removesuffix(".json") + ".csv")
            level = parse_level(rows[:10])
        except PlaybenchError:
            return False
        grid = map_grid(steps[0].observation) if steps else None
        return grid is not None and shows(grid, level)


# -- NetHack and MiniHack: the first step -------------------------------------------------------------------


def _game(task_id: str, values: Mapping[str, Any]) -> Any:
    """The task's game with BALROG's text (compat) and no playbench note, to be reset without ``prepare``.

    No event loop is needed, so a caller inside one (``evaluate_async``) can read instances too.
    """
    task = get_task(task_id)
    return task.make_game(task.params({"compat": True, "feedback": False, **values}), 0)


def _first_step_problem(folder: Path, file: _File, row: leaderboard.Row, options: dict[str, Any],
                        values: Mapping[str, Any] | None) -> str | None:
    """Why the options' NetHack game is not confirmed as the episode's (None: its first step is the recorded one).

    The episode's first recorded answer is played; the text must be the recorded one (before 2025-03-06,
    BALROG's older wrapper shaped the message line: the rest of the text is compared then). About 1 in 100
    episodes of the public rows part there (what else their run had is recorded nowhere).
    """
    from playbench.suites.balrog.leaderboard_nle import AUTO_MORE_SINCE

    try:
        steps, early = leaderboard.read_steps(folder, file.relative.removesuffix(".json") + ".csv")
    except PlaybenchError as exc:
        return f"{exc}: its first recorded step confirms its NetHack game"
    if not steps:
        return "its steps table is empty: its first recorded step confirms its NetHack game"
    agent = file.data.get("agent")
    images = agent.get("max_image_history", 0) if isinstance(agent, dict) else 0  # a VLM row's text has no map
    levels = {"levels": values["levels"]} if values and file.row.kind == "boxoban" else {}
    step = steps[0]
    game = _game(file.row.id, {"images": isinstance(images, int) and images > 0, **levels})
    try:
        game.reset(seed=file.seed, options=options)
        action = step.answer if leaderboard.valid(step.answer, game.legal_actions()) else game.default_action
        text = game.step(action)[0]
    except Exception as exc:  # noqa: BLE001  (the engine's own fault: the instance cannot be confirmed)
        return f"its NetHack game could not be played to check its first step ({type(exc).__name__}: {exc})"[:300]
    finally:
        game.close()
    if action != step.answer:
        style = leaderboard.note_style((s.observation for s in steps), row.date)
        text = leaderboard.with_note(style, early, step.answer, action, text)
    recorded = step.observation
    if row.date is None or row.date < AUTO_MORE_SINCE:
        text, recorded = (t.partition("language observation:")[2] for t in (text, recorded))
    if text != recorded:
        return ("its first step gives another text than the one recorded: NetHack's game, seeded as BALROG seeds it "
                "at noon of the row's date, is not the one BALROG played (what else its run had, its hour or its "
                "display seed, is recorded nowhere)")
    return None


# -- Boxoban ------------------------------------------------------------------------------------------------

#: The map's characters that are not walls, in the official files (floor, box, goal, player) and on NetHack's
#: screen (floor, boulder, fountain, the hero, the up stairs where it started, an unlit cell)
_NOT_WALLS = str.maketrans({ch: " " for ch in " $.@`{<"})


def map_grid(text: str) -> list[str] | None:
    """The ten rows of the Boxoban level a recorded observation's ``map:`` shows, or None (no map, or not 10x10)."""
    if "\nmap:\n" not in text:
        return None
    lines = text.split("\nmap:\n", 1)[1].split("\n")
    walls = [(r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch == "#"]
    if not walls:
        return None
    top, left = min(r for r, _ in walls), min(c for _, c in walls)
    bottom, right = max(r for r, _ in walls), max(c for _, c in walls)
    if (bottom - top + 1, right - left + 1) != (10, 10):
        return None
    return [lines[r][left:right + 1].ljust(10) for r in range(top, bottom + 1)]


def shows(grid: list[str], level: Level) -> bool:
    """Whether the map is of ``level`` after a step or so.

    Its walls; its start (NetHack's up stairs, or the hero standing on them); each goal shown (a fountain) or
    covered by a boulder or the hero; as many boulders.
    """
    cells = {ch: {(r, c) for r, row in enumerate(grid) for c, x in enumerate(row) if x == ch} for ch in "#`{@<"}
    start = next(iter(cells["<"] or cells["@"]), None)
    covered = cells["`"] | cells["@"]
    return (cells["#"] == set(level.walls) and start == level.player and cells["{"] <= set(level.goals)
            and set(level.goals) - cells["{"] <= covered and len(cells["`"]) == len(level.boxes))


def _boxoban_levels(folder: Path, files: list[_File],
                    tasks: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[str | None, str | None]]:
    """Each Boxoban episode file -> (the official level its first recorded map shows, None) or (None, why not).

    The levels are those under its task's ``-T levels=PATH``, each file scanned once for every map wanted.
    """
    out: dict[str, tuple[str | None, str | None]] = {}
    wanted: dict[tuple[str, str], dict[str, list[str]]] = {}  # (levels, preset) -> {file: its map}
    for file in files:
        path = tasks[file.row.id].get("levels")
        if not isinstance(path, str):
            out[file.relative] = None, (f"{submission.seed_problem(file.row)}; give the official levels (-T "
                                        "levels=PATH) to find it by the map its first step shows")
            continue
        try:
            steps, _ = leaderboard.read_steps(folder, file.relative.removesuffix(".json") + ".csv")
        except PlaybenchError as exc:
            out[file.relative] = None, f"{exc}: its level is found by the map its first step shows"
            continue
        grid = map_grid(steps[0].observation) if steps else None
        if grid is None:
            out[file.relative] = None, NO_MAP
            continue
        wanted.setdefault((path, file.row.name.removeprefix("boxoban-")), {})[file.relative] = grid
    for (path, preset), grids in wanted.items():
        out.update(identify_levels(path, preset, grids))
    return out


#: Why a Boxoban episode whose first recorded observation shows no map cannot be given its level.
NO_MAP = ("its first recorded observation shows no map (a VLM row's text leaves it out): which Boxoban level it "
          "played cannot be told")


def identify_levels(path: str, preset: str, grids: Mapping[str, list[str]]) -> dict[str, tuple[str | None, str | None]]:
    """Each key's map (``map_grid``) -> (the one official ``preset`` level under ``path`` it shows, None) or (None, why).

    Why: no level shows it, or several do. Each level file is read once for all the maps; a folder that holds
    no such levels is a PlaybenchError.
    """
    out: dict[str, tuple[str | None, str | None]] = {}
    for key, ids in _scan(path, preset, dict(grids)).items():
        if len(ids) == 1:
            out[key] = ids[0], None
        elif not ids:
            out[key] = None, f"no level of the official {preset} levels under {path} shows the map its first step shows"
        else:
            out[key] = None, (f"{len(ids)} of the official {preset} levels under {path} show the map its first step "
                              f"shows ({', '.join(ids[:3])}): which one it played cannot be told")
    return out


def _scan(path: str, preset: str, grids: dict[str, list[str]]) -> dict[str, list[str]]:
    """The ids of the levels under ``path`` each map shows (read row by row; only levels with its walls parsed)."""
    keys = {relative: "\n".join(row.translate(_NOT_WALLS) for row in grid) for relative, grid in grids.items()}
    found: dict[str, list[str]] = {relative: [] for relative in grids}
    base, files = level_files(path, preset)
    for level_file in files:
        name = level_file.relative_to(base).as_posix()
        lines = read_data_text(level_file, empty=None).splitlines()
        for k, line in enumerate(lines):
            if not line.startswith(";"):
                continue
            rows = lines[k + 1:k + 11]
            key = "\n".join(row.translate(_NOT_WALLS) for row in rows)
            for relative, wanted in keys.items():
                if key == wanted:
                    level = parse_level(rows, "official", f"{name};{line[1:].strip()}")
                    if shows(grids[relative], level):
                        found[relative].append(level.level_id)
    return found


# -- Crafter ------------------------------------------------------------------------------------------------


def _crafter(folder: Path, file: _File, row: leaderboard.Row,
             worlds: list[int] | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """The world seed whose world gives the episode's first recorded steps, among ``worlds``.

    By default the candidates are those its worker's recorded seeds give (``crafter_candidates``).
    """
    from playbench.suites.balrog.leaderboard_crafter import find_world

    if not isinstance(file.data.get("process_num"), str):
        return None, ("its episode file names no process (process_num): its world seed came from the worker's "
                      "NumPy state")
    try:
        steps, early = leaderboard.read_steps(folder, file.relative.removesuffix(".json") + ".csv")
    except PlaybenchError as exc:
        return None, f"{exc}: its world is found by its first steps"
    if not steps:
        return None, "its steps table is empty: its world is found by its first steps"
    episode = _played(file, steps, early)
    world = find_world(episode, row, worlds)
    if world is not None:
        return {"world": world}, None
    return None, (f"its world seed was drawn from the clock: no seed recorded for its worker ({episode.process}) "
                  "gives its world (the worker's first episode, whose NumPy state BALROG seeded from the time and "
                  "pid, recorded nowhere, or one after an episode that left no file)")
