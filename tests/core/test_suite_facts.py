"""Every registered task carries the facts its suite's report needs, and the facts match the specs.

The specs' rows are checked as a subset of the tables: a row added to a table (docs/adding-a-task.md) changes
no test here but its own facts check.
"""

import dataclasses
import re
from pathlib import Path

import pytest

from playbench.core import registry
from playbench.core.errors import PlaybenchError
from playbench.core.registry import find_task, list_groups, list_tasks, missing_facts, suites
from playbench.core.suite import Suite
from playbench.core.task import Task
from playbench.suites.balrog import facts as balrog_facts
from playbench.suites.balrog.babaisai.data import LEVELS
from playbench.suites.smartplay import facts as smartplay_facts

TASKS = list_tasks()
SRC = Path(__file__).resolve().parents[2] / "src" / "playbench"


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_every_task_has_its_suites_facts(task: Task) -> None:
    assert task.facts is not None, f"{task.id} was not built from a facts row"
    assert task.facts.id == task.id
    assert missing_facts(task) == []


def test_every_suite_is_declared_once_with_a_fact_check() -> None:
    declared = suites()
    assert set(declared) == {"balrog", "grasp", "mango", "quickstart", "smartplay"}
    assert {t.suite for t in TASKS} <= set(declared)
    assert all(len(decls) == 1 for decls in declared.values())


def test_a_task_without_facts_fails_the_check() -> None:
    bare = Task(id="smartplay/hanoi-5", description="no row", make_game=lambda p, i: None)  # type: ignore[arg-type, return-value]
    assert missing_facts(bare) == ["smartplay/hanoi-5: no SmartPlay facts row"]
    assert missing_facts(dataclasses.replace(find_task("balrog/babyai/goto"), facts=None))  # type: ignore[arg-type]
    assert missing_facts(dataclasses.replace(find_task("mango/df"), facts=None))  # type: ignore[arg-type]
    assert missing_facts(dataclasses.replace(find_task("grasp/energy"), facts=None))  # type: ignore[arg-type]


def test_smartplay_rows_with_wrong_facts_fail_the_check() -> None:
    hanoi = find_task("smartplay/hanoi-3")
    assert hanoi is not None
    row = hanoi.facts
    for bad in (dataclasses.replace(row, degrees=row.degrees[:8]),
                dataclasses.replace(row, degrees=(0,) * 9),
                dataclasses.replace(row, reference=smartplay_facts.Reference("human", 0, 0)),
                dataclasses.replace(row, reference=smartplay_facts.Reference("range", 3, 0))):  # Table 2 needs human
        assert missing_facts(dataclasses.replace(hanoi, facts=bad)), bad


def test_balrog_rows_with_wrong_facts_fail_the_check() -> None:
    tw = find_task("balrog/textworld/coin_collector")
    assert tw is not None
    for bad in (dataclasses.replace(tw.facts, max_steps=0), dataclasses.replace(tw.facts, prompt_steps=None),
                dataclasses.replace(tw.facts, env="pong")):
        assert missing_facts(dataclasses.replace(tw, facts=bad)), bad


def test_smartplay_reference_scores_are_the_specs() -> None:
    """specs/smartplay.md §4.1: human/min of the 7 starred games, theoretical bounds of the other 13."""
    human = {"bandit-highlow": (45, 0), "rps-basic": (43, 0), "hanoi-3": (3, 0), "messenger-1": (1, -1),
             "messenger-2": (1, -1), "crafter": (2680, 0), "minecraft-plains": (1, 0)}
    ranges = {"bandit-deterministic": (50, 0), "bandit-highhigh": (50, 0), "bandit-lowlow": (50, 0),
              "rps-different-score": (50, 0), "hanoi-4": (4, 0), "messenger-3": (1, -1),
              **{f"minecraft-{b}": (1, 0) for b in ("forest", "ocean", "beach", "taiga", "ice-spikes", "jungle",
                                                   "desert")}}
    got = {row.name: (row.reference.kind, row.reference.high, row.reference.low) for row in smartplay_facts.TASKS}
    want = {**{n: ("human", *v) for n, v in human.items()}, **{n: ("range", *v) for n, v in ranges.items()}}
    assert {n: got.get(n) for n in want} == want
    _, members = list_groups()["smartplay/benchmark-v0"]
    assert members == [f"smartplay/{n}" for n in human]


def test_balrog_step_limits_and_presets_are_the_specs() -> None:
    """specs/balrog.md §1: step limits and episodes per preset, per environment."""
    limits = {row.id: row.max_steps for row in balrog_facts.TASKS}
    spec = {"balrog/crafter/default": 2000, "balrog/nle/nethackchallenge": 100_000,
            **{f"balrog/textworld/{n}": 80 for n in ("treasure_hunter", "the_cooking_game", "coin_collector")},
            **{f"balrog/babaisai/{level}": 100 for level in LEVELS},
            **{f"balrog/minihack/{n}": 100 for n in ("boxoban-hard", "boxoban-medium", "mazewalk-9x9", "mazewalk-15x15",
                                                     "corridor-r3", "corridorbattle-dark", "quest-easy",
                                                     "quest-medium")}}
    assert {tid: limits.get(tid) for tid in spec} == spec
    episodes = {e.name: (e.config_episodes, e.paper_episodes) for e in balrog_facts.ENVS}
    spec_episodes = {"babyai": (10, 25), "crafter": (10, 10), "textworld": (10, 20), "babaisai": (3, 5),
                     "minihack": (5, 5), "nle": (5, 5)}
    assert {name: episodes.get(name) for name in spec_episodes} == spec_episodes
    prompt = {row.id: row.prompt_steps for row in balrog_facts.TASKS}
    spec_prompt = {"balrog/textworld/treasure_hunter": 40, "balrog/textworld/the_cooking_game": 80,
                   "balrog/textworld/coin_collector": 25}
    assert {tid: prompt.get(tid) for tid in spec_prompt} == spec_prompt


@pytest.mark.parametrize("kind", ["goto", "pickup", "open", "putnext", "pick_up_seq_go_to"])
def test_babyai_step_limits_are_minigrids(kind: str) -> None:
    """The BabyAI rows hold Minigrid's own ``max_steps`` of each kind, and the game uses the row."""
    from playbench.suites.balrog.babyai.game import BabyAIGame

    row = find_task(f"balrog/babyai/{kind}").facts
    assert row.level == kind
    game = BabyAIGame(row)
    for seed in range(3):
        game.reset(seed=seed)
        assert game.max_steps == game.env.max_steps == row.max_steps


def test_a_task_id_is_declared_once() -> None:
    hanoi = find_task("smartplay/hanoi-3")
    with pytest.raises(PlaybenchError, match="declared twice"):
        registry.register_suite(Suite(name="smartplay", tasks=(hanoi,)))  # type: ignore[arg-type]
    assert find_task("smartplay/hanoi-3") is hanoi


def test_nothing_outside_the_registry_registers_or_reads_its_private_tables() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name == "registry.py" and path.parent.name == "core":
            continue
        text = path.read_text()
        if re.search(r"registry import[^\n]*\b_[A-Z]|register_task|register_group|\bfrom \S+ import \w+  # noqa: F401,E402",
                     text):
            offenders.append(str(path.relative_to(SRC)))
    assert offenders == []


def test_smartplay_episodes_steps_and_history_are_the_specs() -> None:
    """specs/smartplay.md §1: trials (episodes), rollout (max steps) and history kept of every id, as the code has them."""
    family = {"bandit": (20, 50, 50), "rps": (20, 50, 50), "hanoi": (10, 30, 5), "crafter": (10, 10000, 2),
              "minecraft": (20, 200, 2)}
    names = {"bandit": ("deterministic", "highhigh", "highlow", "lowlow"), "rps": ("basic", "different-score"),
             "hanoi": ("3", "4"), "minecraft": ("plains", "forest", "ocean", "beach", "taiga", "ice-spikes", "jungle",
                                                "desert")}
    spec = {f"smartplay/{game}-{name}": family[game] for game, group in names.items() for name in group}
    spec |= {"smartplay/crafter": family["crafter"], "smartplay/messenger-1": (100, 4, 2),
             "smartplay/messenger-2": (100, 64, 2), "smartplay/messenger-3": (100, 128, 2)}
    got = {row.id: (row.episodes, row.max_steps, row.history) for row in smartplay_facts.TASKS}
    assert {tid: got.get(tid) for tid in spec} == spec


def test_smartplay_games_take_their_limits_from_the_row() -> None:
    from playbench.suites.smartplay.hanoi import HanoiGame
    from playbench.suites.smartplay.params import SmartPlayParams

    task = find_task("smartplay/messenger-3")
    assert task is not None
    game = task.make_game(task.params(), 0)
    assert (game.max_steps, game.tracker.history) == (128, 2)
    assert task.make_game(task.params({"max_steps": "9", "history": "3"}), 0).max_steps == 9
    # a row no table holds (one disk more than the largest, its own limits) is played as it says
    hanoi = find_task("smartplay/hanoi-3").facts
    absent = 1 + max(int(row.variant or 0) for row in smartplay_facts.TASKS if row.game == "hanoi")
    game = HanoiGame(SmartPlayParams(), dataclasses.replace(hanoi, variant=absent, max_steps=7, history=1))
    assert (game.disks, game.max_steps, game.tracker.history) == (absent, 7, 1)


DOCS = SRC.parents[1] / "docs" / "suites"


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def test_smartplay_docs_task_table_holds_the_rows() -> None:
    """Each line of docs/suites/smartplay.md's task table says what its row says (a row without a line is fine:
    ``playbench list`` shows every task)."""
    rows = {row.id: row for row in smartplay_facts.TASKS}
    lines = [_cells(line) for line in (DOCS / "smartplay.md").read_text().splitlines()
             if line.startswith("| `smartplay/")]
    assert len(lines) >= 20
    for task_id, original, _engine, max_steps, episodes, history in lines:
        row = rows[task_id.strip("`")]
        assert (original.strip("`"), int(max_steps), int(episodes), int(history)) == (
            row.original, row.max_steps, row.episodes, row.history), task_id


def _expand(ids: str) -> list[str]:
    """``a/{b,c}`` -> ``[a/b, a/c]``."""
    found = re.fullmatch(r"(.*)\{(.*)\}(.*)", ids)
    return [f"{found[1]}{part}{found[3]}" for part in found[2].split(",")] if found else [ids]


def test_balrog_docs_task_table_holds_the_rows() -> None:
    """docs/suites/balrog.md's task table: each id (``{a,b}`` expanded; ``<…>`` and ``…`` stand for every row of
    the environment) has the step limit and the episodes its line gives."""
    lines = [_cells(line) for line in (DOCS / "balrog.md").read_text().splitlines() if line.startswith("| `balrog/")]
    assert {env for cells in lines for env in re.findall(r"`balrog/(\w+)/", cells[0])} == set(balrog_facts.env_names())
    for ids, _engine, episodes, limit, _progression in lines:
        items = [tid for item in re.findall(r"`([^`]+)`", ids) for tid in _expand(item)]
        numbers = [int(n.replace(" ", "")) for n in re.findall(r"\d[\d ]*\d|\d", limit.split(":")[-1])]
        assert len(numbers) in (1, len(items)), ids
        for item, number in zip(items, numbers * len(items) if len(numbers) == 1 else numbers, strict=True):
            env = item.split("/")[1]
            named = [row for row in balrog_facts.TASKS if row.id == item]
            for row in named or [row for row in balrog_facts.TASKS if row.env == env]:
                assert row.max_steps == number, (ids, row.id)
            assert episodes == "{} / {}".format(*[balrog_facts.env(env).episodes(p) for p in ("config", "paper")]), ids


def _row_of(task_id: str) -> object:
    task = find_task(task_id)
    assert task is not None
    return task.facts


def test_a_babyai_row_names_the_level_it_plays() -> None:
    """A BabyAI variant under a name of its own plays the level its row names; an unknown level is refused."""
    from playbench.suites.balrog.babyai.game import BabyAIGame
    from playbench.suites.balrog.tasks import build_task

    task = build_task(dataclasses.replace(_row_of("balrog/babyai/goto"), name="goto-short", max_steps=5))
    assert (task.id, missing_facts(task)) == ("balrog/babyai/goto-short", [])
    game = task.make_game(task.params(), 0)
    assert isinstance(game, BabyAIGame) and game.kind == "goto" and game.max_steps == 5
    game.reset(seed=0)
    assert game.instance()["task"] == "BabyAI-MixedTrainLocal-v0/goto"
    for level in ("goto-short", ""):
        bad = build_task(dataclasses.replace(_row_of("balrog/babyai/goto"), name="goto-short", level=level))
        assert missing_facts(bad) == [f"balrog/babyai/goto-short: level {level!r} is not in facts.BABYAI_LEVELS"]


def test_a_baba_row_names_the_level_it_plays() -> None:
    from playbench.suites.balrog.tasks import build_task

    row = _row_of("balrog/babaisai/goto_win")
    assert missing_facts(build_task(dataclasses.replace(row, name="goto-again"))) == []
    assert missing_facts(build_task(dataclasses.replace(row, level="goto_nowhere"))) == [
        "balrog/babaisai/goto_win: level 'goto_nowhere' is not in babaisai.data.LEVELS"]
    crafter = _row_of("balrog/crafter/default")
    assert missing_facts(build_task(dataclasses.replace(crafter, level="goto"))) == [
        "balrog/crafter/default: only BabyAI, TextWorld and Baba Is AI rows name a level"]


def test_a_textworld_row_names_the_game_kind_it_plays() -> None:
    from playbench.suites.balrog.tasks import build_task

    row = dataclasses.replace(_row_of("balrog/textworld/coin_collector"), name="coins-short", max_steps=20)
    task = build_task(row)
    assert missing_facts(task) == []
    game = task.make_game(task.params({"games": "1"}), 0)  # built, not reset: no game file is made
    assert (game.task, game.max_steps, game.ref.label) == ("coin_collector", 20, task.make_game(
        find_task("balrog/textworld/coin_collector").params({"games": "1"}), 0).ref.label)
    assert missing_facts(build_task(dataclasses.replace(row, level="coins"))) == [
        "balrog/textworld/coins-short: level 'coins' is not in textworld.published.GAMES"]


def _table(page: str, header: list[str]) -> list[list[str]]:
    """The body lines of the table of ``docs/suites/PAGE`` whose header is ``header``, as cells."""
    lines = (DOCS / page).read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and _cells(line) == header:
            body = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                body.append(_cells(row))
            return body
    raise AssertionError(f"{page} has no table {header}")


def _first_number(text: str) -> int:
    found = re.search(r"\d[\d ,]*", text)
    assert found, text
    return int(re.sub(r"[ ,]", "", found[0]))


@pytest.mark.parametrize("suite", ["mango", "grasp"])
def test_mango_and_grasp_docs_task_tables_hold_the_rows(suite: str) -> None:
    """Every task of the suite has a line in its page's task table with its default episode count and aliases
    (a group its members); the table names nothing that is not registered."""
    groups = list_groups()
    header = {"mango": ["task", "question", "default episodes"],
              "grasp": ["task", "what one episode is", "default episodes"]}[suite]
    named = set()
    for cells in _table(f"{suite}.md", header):
        task_id = re.match(r"`([^`]+)`", cells[0])[1]  # type: ignore[index]
        named.add(task_id)
        if task_id in groups:
            assert re.findall(r"`([^`]+)`", cells[1]) == groups[task_id][1], task_id
            continue
        task = find_task(task_id)
        assert task is not None and task.suite == suite, task_id
        assert _first_number(cells[-1]) == task.episodes(task.params()), task_id
        assert re.findall(r"alias `([^`]+)`", cells[0]) == list(task.aliases), task_id
    assert {t.id for t in TASKS if t.suite == suite} <= named


def test_nethack_docs_task_table_holds_the_rows() -> None:
    """docs/suites/nethack.md: each line's tasks (named as in their rows' original env ids) have its default
    action and step limit, and every MiniHack and NetHack row is on a line."""
    rows = [row for row in balrog_facts.TASKS if row.env in ("minihack", "nle")]
    covered = set()
    for name, _actions, default, limit in _table("nethack.md", ["task", "actions", "default", "step limit"]):
        matched = [row for row in rows if any(f"-{part.strip()}-" in f"-{row.original}" for part in name.split(","))]
        assert matched, name
        for row in matched:
            covered.add(row.id)
            assert (default.strip("`"), _first_number(limit)) == (
                balrog_facts.env(row.env).default_action, row.max_steps), (name, row.id)
    assert covered == {row.id for row in rows}
