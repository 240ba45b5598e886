"""The Crafter episodes of a leaderboard row, re-played on the world BALROG's worker made.

What decides a Crafter instance in BALROG (its evaluator and crafter 1.8.3, read from their code):

- The world. ``make_env`` builds ``crafter.Env(seed=None)`` (``crafter_kwargs.seed: null``), which draws
  ``np.random.randint(0, 2**31 - 1)`` from NumPy's global state, before ``run_episode`` seeds it with the
  episode's seed; the first world of that env is ``hash((drawn, 1)) % (2**31 - 1)``. So the world follows
  from the state the worker was left in: ``np.random.seed(s)`` of the worker's previous episode, plus the
  draws made since (that episode's own: a Baba Is AI episode makes a dozen or more; and one when BALROG's
  crafter module is first imported, for a throw-away ``crafter.Env()``). The candidates are the first
  draws after each seed recorded for the same worker (``CRAFTER_DRAWS``); the one whose world gives the first
  recorded observations is taken. A candidate is first put to a quick necessary test (``could_give``: the
  materials around the spawn, worked out without generating the world, against the first observations), and
  only those that pass are generated and played. A worker's first episode draws after the
  seed ``_worker`` gave the worker when it started, ``get_unique_seed(process_num=position)``: the first 32
  bits of a SHA-256 of its pid, position and ``time.time_ns()``, recorded nowhere (every public BALROG
  version; a run with one worker seeds nothing, so NumPy's global state is the one it seeded from OS entropy
  at import, and its files name no worker). Such an episode is not verifiable.
- The text. BALROG's text of the world changed on 2025-04-24 (the facing cell was read transposed
  before); the episode is compared with the version whose text it shows.
- The despawned creature. Every 10th step crafter balances each chunk's zombies, skeletons and cows: when
  a chunk holds more than its target and a draw falls under the despawn chance, it removes
  ``creatures[random.randint(0, n)]``, where ``creatures`` lists the chunk's ``set`` of objects in iteration
  order. A set's order follows its members' hashes, which for crafter's objects are their memory addresses
  (``object.__hash__``), so which creature goes is not a function of the seed (SmartPlay B12). The draws are
  the same whichever creature goes (the removal is skipped when the one taken is too near the player), so
  the re-play branches there: one copy of the engine per distinct outcome (each creature far enough away,
  or none), each stepped on and kept while its observations, rewards and done agree with the record.
  Each choice is taken as free (the order of a set that changed since an earlier choice is not modelled),
  so the branches are a superset of what crafter could have done: all of them parting at step k is a
  difference there. Branches that reach the same game state are merged. The search is bounded (``BEAM``
  live branches, ``WORK`` engine steps an episode): past ``BEAM`` it keeps those that differ near the player
  first (branches that differ only in creatures out of the player's reach draw and show alike until it comes
  near); a branch that agrees to the end verifies the episode all the same, but when all kept ones part, or
  the work bound is passed, the episode is not verifiable and the reason says so.
- The night. BALROG's wrapper renders each frame a second time (``process_obs``), and at night crafter's
  local view draws its noise from the world's generator, so each night step draws it twice, in the shape
  of the image size: the public config's 256 pixels, or before the public repository (2024-11-21) a size
  recorded nowhere, searched among crafter's default 64 and 256 (the branches part at the first night).
"""

import collections
import copy
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from crafter import constants

from playbench.core.task import Task
from playbench.core.verdict import NotVerifiable
from playbench.suites.balrog.leaderboard import Played, Player, Row, recorded_number, valid, with_note
from playbench.suites.balrog.leaderboard_games import compat_game, task_of
from playbench.suites.crafter import spawnview
from playbench.suites.crafter.describe import HALF_H, HALF_W, direction
from playbench.suites.crafter.engine import CrafterEngine
from playbench.suites.crafter.games import world_seed
from playbench.suites.crafter.prompts import ACTIONS

#: How many draws after a worker's recorded seed a Crafter world seed may be: the crafter module's import
#: draws one for a throw-away env, and the episode before may draw more: after a Baba Is AI episode the
#: world was the 13th to 29th draw (Llama-3.2-1B and phi-4 rows), after TextWorld the 2nd. Each candidate
#: world costs its generation (about 0.2 s), so the other environments' seeds get the few first draws only.
CRAFTER_DRAWS = {"babaisai": 40}
OTHER_DRAWS = 4
#: The first recorded steps a candidate Crafter world must give, all of them, to be taken as the episode's:
#: well past crafter's first creature balancing (its 10th step, the recorded step 8), after which worlds whose
#: first views look alike part. 8 let claude-3-5-haiku's episode 9 (its first views: grass and a tree) take a
#: world that parts at step 10, as BALROG's own code does on it; 16 find the later one that gives the record.
CRAFTER_PROBE = 16
#: The image sizes (pixels a side) BALROG's crafter may have rendered: crafter's default, and the public
#: config's ``crafter_kwargs.size`` (every version since the public repository's first commit).
IMAGE_SIZES = (64, 256)
#: The public repository's first commit: rows before it ran a config that is not public.
PUBLIC_SINCE = "2024-11-21"
#: The most branches (engine copies that agree with the record so far) kept at once.
BEAM = 64
#: The most engine steps one episode's search may take, all branches together (a branch-free episode of
#: 200 steps takes 200).
WORK = 10_000


def crafter_candidates(episode: Played, row: Row) -> list[int]:
    """World seeds the worker's state could have given ``crafter.Env(seed=None)``: draws after its seeds.

    Each seed's first draw, then each one's second, and so on (the nearest draws are the likeliest).
    """
    draws = []
    for env, task, index, seed in row.processes.get(episode.process or "", []):
        if seed is not None and (env, task, index) != (episode.env, episode.task, episode.index):
            state = np.random.RandomState(seed)
            draws.append([int(state.randint(0, 2**31 - 1)) for _ in range(CRAFTER_DRAWS.get(env, OTHER_DRAWS))])
    deepest = max((len(drawn) for drawn in draws), default=0)
    return list(dict.fromkeys(drawn[k] for k in range(deepest) for drawn in draws if k < len(drawn)))


#: The materials crafter's world generation places: any other name a first view shows is something on a cell.
GENERATED = frozenset(spawnview.NAMES)
#: The materials each thing a first view may show on a cell can stand on (crafter's objects' moves; a plant is
#: placed on grass); anything else named is taken to stand anywhere.
_WALKABLE = frozenset(constants.walkable)
_PLAYER_WALKS = _WALKABLE | {"lava"}
_MOVES = {"Move West": (-1, 0), "Move East": (1, 0), "Move North": (0, -1), "Move South": (0, 1)}
STANDS_ON = {"cow": _WALKABLE, "zombie": _WALKABLE, "skeleton": _WALKABLE, "arrow": _WALKABLE | {"water", "lava"},
             "plant": frozenset({"grass"})}
#: One line of BALROG's ``You see:`` list: name, distance, direction.
_SEEN = re.compile(r"- ([a-z_]+) (\d+) steps? to your ([a-z-]+)")
#: The first recorded steps the quick test reads: no generated material but a tree (collected, it leaves
#: grass) can change before the sixth step (stone, the next that leaves another, needs a wood pickaxe: two
#: wood for a table, one for the pickaxe, a step each; tables and plants a player places are taken as things
#: that stand anywhere).
QUICK_STEPS = 4
_GRASS = frozenset({"grass"})


def could_give(world: int, episode: Played, area: tuple[int, int] = (64, 64)) -> bool:
    """Whether ``crafter.Env(seed=world)``'s first world can show the episode's first recorded observations.

    A quick necessary test made before generating the world, from ``spawnview``: first the materials the noise
    alone allows around the spawn, then the materials of the columns up to the first views' last (several
    times quicker than generating the world). The player starts on the spawn cell; each of the first
    ``QUICK_STEPS`` steps leaves it where it stood or, after a move, on the next cell if it can walk there. For
    one such path, each material a step's text lists must lie at its distance and direction, and each cell of
    its 9x7 window must show a name the text lists no farther away: its material (after the first step, a
    tree's cell may be grass), or something that can stand on it. A step whose text has no ``You see:`` list
    ends the test.
    """
    views = []
    for step in episode.steps[:QUICK_STEPS]:
        listed = _listed(step.observation)
        if listed is None:
            break
        views.append((step.answer, listed))
    if not views:
        return True
    x, y = area[0] // 2, area[1] // 2
    seed = world_seed(world)
    for reach in sorted({1, len(views)}):  # the first view's cells alone refuse most candidates
        cells = [(x + dx, y + dy) for dx in range(-HALF_W - reach, HALF_W + reach + 1)
                 for dy in range(-HALF_H - reach, HALF_H + reach + 1)]
        noise_only = dict(zip(cells, spawnview.possible(seed, cells, area), strict=True))
        if not _could_show_along(noise_only.__getitem__, views[:reach], x, y):
            return False
    codes = spawnview.materials(seed, x + HALF_W + len(views) + 1, area)
    return _could_show_along(lambda cell: _ONE[codes[cell]], views, x, y)


def _listed(text: str) -> dict[str, tuple[int, str]] | None:
    """The names a ``You see:`` list shows, with the distance and direction of each; None without one."""
    _, seen, rest = text.partition("You see:\n")
    lines = rest.split("\n\n")[0].split("\n") if seen else []
    found = [_SEEN.fullmatch(line) for line in lines]
    if not lines or not all(found):
        return None
    listed: dict[str, tuple[int, str]] = {}
    for match in found:
        assert match is not None
        listed.setdefault(match[1], (int(match[2]), match[3]))
    return listed


#: Each material alone, by its index in ``spawnview.NAMES``.
_ONE = [frozenset({name}) for name in spawnview.NAMES]
#: The materials that may lie at a cell.
Materials = Callable[[tuple[int, int]], frozenset[str]]


def _could_show_along(at: Materials, views: list[tuple[str, dict[str, tuple[int, str]]]], x: int, y: int) -> bool:
    """Whether the first steps can take the player from its spawn (x, y) along cells whose windows show the views."""
    places = {(x, y)}
    for k, (answer, listed) in enumerate(views):
        seen = at if k == 0 else _or_felled(at)  # the first step's facing cell is grass: it fells no tree
        places = {after for place in places for after in _after(seen, answer, place)
                  if _could_show(seen, listed, *after)}
        if not places:
            return False
    return True


def _or_felled(at: Materials) -> Materials:
    """The materials, a tree's cell also grass (collecting a tree leaves grass)."""
    return lambda cell: at(cell) | _GRASS if "tree" in at(cell) else at(cell)


def _after(at: Materials, answer: str, place: tuple[int, int]) -> list[tuple[int, int]]:
    """Where a step can leave the player.

    Where it stood (another action, or a creature in the way) or, after a move, on the next cell if it can walk
    there; after an answer that is no action (its default played instead), any move.
    """
    moves = list(_MOVES.values()) if answer not in ACTIONS else [_MOVES[answer]] if answer in _MOVES else []
    x, y = place
    return [place] + [(x + dx, y + dy) for dx, dy in moves if at((x + dx, y + dy)) & _PLAYER_WALKS]


def _could_show(at: Materials, listed: dict[str, tuple[int, str]], x: int, y: int) -> bool:
    """Whether the window around (x, y) can show the listed names (see ``could_give``)."""
    window = [(dx, dy, at((x + dx, y + dy)))
              for dx in range(-HALF_W, HALF_W + 1) for dy in range(-HALF_H, HALF_H + 1) if dx or dy]
    for name, (dist, way) in listed.items():
        if name in GENERATED and not any(abs(dx) + abs(dy) == dist and direction(dx, dy) == way and name in materials
                                         for dx, dy, materials in window):
            return False
    on_cells = [(dist, STANDS_ON.get(name, GENERATED)) for name, (dist, _) in listed.items() if name not in GENERATED]
    return all(any(listed.get(material, (math.inf,))[0] <= abs(dx) + abs(dy)
                   or any(dist <= abs(dx) + abs(dy) and material in stands for dist, stands in on_cells)
                   for material in materials)
               for dx, dy, materials in window)


def crafter_texts(engine: Any) -> tuple[str, str]:
    """BALROG's long-term Crafter text before 2025-04-24 (facing cell transposed) and after (fixed)."""
    from playbench.suites.crafter import describe

    win = describe.window(engine)
    status = describe.SLEEPING if win.sleeping else describe.DIED if win.dead else ""

    def text(seen: str, target: str) -> str:
        return ((status + "\n\n" if status else "") + "\n\n" + seen + f"\n\nYou face {target} at your front.").strip()

    if win.low_edge:  # BALROG's window slice starts below 0 there: numpy gives an empty window, nothing in it
        return (text("You see nothing away from you.", "nothing"),) * 2
    seen = _seen(win)
    player = engine.player
    px, py = int(player.pos[0]), int(player.pos[1])
    fx, fy = int(player.facing[0]), int(player.facing[1])
    width, height = engine.semantic().shape
    # Before the fix BALROG read semantic[target_y, target_x] of its 9x7 window: the cell (fy - 1, fx + 1)
    # away, when that cell is inside the window (which the world's far edges may cut).
    x, y = px + fy - 1, py + fx + 1
    transposed = engine.id_names()[int(engine.semantic()[x, y])] if x < width and y < height else "nothing"
    return text(seen, transposed), text(seen, win.target if win.target is not None else "nothing")


def _seen(win: Any) -> str:
    """``You see:`` as BALROG wrote it until 2025-08: one line per id in id order, always ``steps``."""
    from playbench.suites.crafter import describe

    best: dict[int, tuple[int, int, int]] = {}
    for dx, dy, sem in win.cells:  # x-major: the first cell met wins a tie, as numpy's argmin
        dist = abs(dx) + abs(dy)
        if sem not in best or dist < best[sem][0]:
            best[sem] = (dist, dx, dy)
    if not best:
        return "You see nothing away from you."
    lines = [f"- {win.names[s]} {d} steps to your {describe.direction(dx, dy)}" for s, (d, dx, dy) in sorted(best.items())]
    return "You see:\n" + "\n".join(lines)


class BranchingEngine(CrafterEngine):
    """The engine whose chunk balancing takes the despawned creature from a script of picks.

    Each despawn whose outcome depends on a set's order (two outcomes or more: one per creature far enough
    away, plus none when a nearer one may be drawn) takes ``script[i]`` for the step's i-th such despawn
    (the first outcome once the script runs out) and appends its number of outcomes to ``arities``.
    Creatures are otherwise taken in a stable order (their index in the world's object list).
    """

    script: tuple[int, ...] = ()
    arities: list[int]

    def step(self, action: int) -> tuple[Any, float, bool, dict[str, Any]]:
        """Crafter's step, then the second image BALROG's wrapper renders.

        ``CrafterLanguageWrapper.process_obs`` renders the frame again after each step: at night its noise is
        drawn from the world's generator a second time.
        """
        self.arities = []
        stepped = super().step(action)
        if self._world.daylight < 0.5:
            self._world.random.uniform(32, 127, self._noise_shape)
        return stepped

    def _balance_object(self, chunk: Any, objs: Any, cls: Any, material: str, span: int, despan: int,
                        spawn: float, despawn: float, ctor: Any, target_fn: Any) -> None:
        ordered = self._chosen_placed(list(objs), chunk, cls, material, despan, despawn, target_fn)
        # crafter's own balancing (skipping CrafterEngine's stable order: the order matters only where chosen)
        super(CrafterEngine, self)._balance_object(chunk, ordered, cls, material, span, despan, spawn, despawn,
                                                   ctor, target_fn)

    def _chosen_placed(self, objs: list[Any], chunk: Any, cls: Any, material: str, despan: int, despawn: float,
                       target_fn: Any) -> list[Any]:
        """The objects, the scripted creature placed where crafter's coming draw will take it."""
        creatures = [obj for obj in objs if isinstance(obj, cls)]
        count = len(creatures)
        if count < 2 or count <= int(target_fn(count, self._world.mask(*chunk, material).sum())[1]):
            return objs  # no despawn can come (a spawn needs fewer creatures than any despawn)
        random = self._world.random
        state = random.get_state()
        drawn, at = random.uniform(), int(random.randint(0, count))  # crafter's two draws, only peeked
        random.set_state(state)
        if drawn >= despawn:
            return objs
        obj_map = self._world._obj_map
        creatures.sort(key=lambda obj: int(obj_map[obj.pos[0], obj.pos[1]]))  # outcomes in a stable order
        near = [obj for obj in creatures if self._player.distance(obj.pos) < despan]
        outcomes = [obj for obj in creatures if not any(obj is n for n in near)] + near[:1]
        if len(outcomes) < 2:
            return objs  # whichever is drawn, the outcome is the same
        pick = self.script[len(self.arities)] if len(self.arities) < len(self.script) else 0
        self.arities.append(len(outcomes))
        chosen = outcomes[pick]
        others = [obj for obj in creatures if obj is not chosen]
        return [obj for obj in objs if not isinstance(obj, cls)] + others[:at] + [chosen] + others[at:]


@dataclass
class Branch:
    """One engine copy that agrees with the record so far, and what is still open about it."""

    engine: BranchingEngine
    versions: tuple[int, ...]  # BALROG's texts still in play: 0 before 2025-04-24, 1 after
    shapes: tuple[tuple[int, int], ...]  # the night noise's shapes still in play (the image size BALROG used)
    picks: tuple[tuple[int, int, int], ...] = ()  # (recorded step, pick, outcomes) of each despawn choice


def root_branch(engine: CrafterEngine, sizes: tuple[int, ...]) -> Branch:
    """The one branch of a fresh episode's engine (made a BranchingEngine in place), either text version."""
    engine.__class__ = BranchingEngine  # the same engine and state; its balancing takes scripted picks
    engine.script = ()
    branch = Branch(engine, (0, 1), tuple(noise_shape(engine, size) for size in sizes))
    engine._noise_shape = branch.shapes[0]
    return branch


def noise_shape(engine: CrafterEngine, size: int) -> tuple[int, int]:
    """The shape of the noise crafter's local view draws at night for images of ``size`` pixels a side."""
    grid = np.array(engine._local_view._grid)
    unit = size // np.array(engine._view)
    return int(grid[0] * unit[0]), int(grid[1] * unit[1])


def _copy(engine: BranchingEngine) -> BranchingEngine:
    """A copy of the engine's game state that shares nothing mutable with it (the textures, read-only, shared).

    Made by hand (five times faster than ``copy.deepcopy``): the world with its maps, generator, object slots
    and chunks; each object with its arrays, dicts and sets copied and its links (world, generator, player)
    pointed at the copies; the views that read the world made again over the copy.
    """
    old = engine._world
    world = copy.copy(old)
    world._mat_map = old._mat_map.copy()
    world._obj_map = old._obj_map.copy()
    world.random = np.random.RandomState()
    world.random.set_state(old.random.get_state())
    twins: dict[int, Any] = {id(old): world, id(old.random): world.random}
    world._objects = [None if obj is None else copy.copy(obj) for obj in old._objects]
    twins.update((id(obj), twin) for obj, twin in zip(old._objects, world._objects, strict=True) if obj is not None)
    for twin in world._objects:
        if twin is not None:
            for name, value in vars(twin).items():
                setattr(twin, name, twins.get(id(value), _mutable_copy(value)))
    world._chunks = collections.defaultdict(set, {key: {twins[id(obj)] for obj in members}
                                                   for key, members in old._chunks.items()})
    copied = copy.copy(engine)
    copied._world = world
    copied._player = twins[id(engine._player)]
    copied._unlocked = set(engine._unlocked)
    copied._local_view = copy.copy(engine._local_view)
    copied._local_view._world = world
    semantic = copy.copy(engine._sem_view.view)
    semantic._world = world
    copied._sem_view = copy.copy(engine._sem_view)  # the semantic map's cache, its own and empty
    copied._sem_view.view = semantic
    copied._sem_view._engine = copied
    copied._sem_view.forget()
    return copied


def _mutable_copy(value: Any) -> Any:
    """An attribute's own copy where it can change in place (arrays, dicts, sets); else the value itself."""
    if isinstance(value, np.ndarray | dict | set):
        return value.copy()
    return value


def _night_next(engine: CrafterEngine) -> bool:
    """Whether the coming step is at night (its images draw noise), by crafter's own clock."""
    engine._step += 1
    engine._update_time()
    night = bool(engine._world.daylight < 0.5)
    engine._step -= 1
    engine._update_time()
    return night


def _by_size(branch: Branch) -> list[Branch]:
    """The branch, or one copy per image size still in play once the noise they draw differs (at night)."""
    if len(branch.shapes) < 2 or not _night_next(branch.engine):
        return [branch]
    split = [Branch(_copy(branch.engine), branch.versions, (shape,), branch.picks) for shape in branch.shapes]
    for one in split:
        one.engine._noise_shape = one.shapes[0]
    return split


def successors(branch: Branch, action: int, step: int, runs: int = WORK) -> list[tuple[Branch, float, bool]]:
    """The branch stepped once per combination of this step's despawn outcomes (one run when none).

    NotVerifiable when the combinations need more than ``runs`` engine steps.
    """
    if runs < 1:
        raise past_bound(step)
    engine = branch.engine
    if (engine.step_count + 1) % 10:  # crafter balances chunks every 10th step only
        engine.script = ()
        _, reward, done, _ = engine.step(action)
        return [(branch, float(reward), bool(done))]
    saved = _copy(engine)
    scripts: list[tuple[int, ...]] = [()]
    found: list[tuple[Branch, float, bool]] = []
    while scripts:
        if len(found) >= runs:
            raise past_bound(step)
        script = scripts.pop()
        run = engine if not found else _copy(saved)
        run.script = script
        _, reward, done, _ = run.step(action)
        picks = script + (0,) * (len(run.arities) - len(script))
        for i in range(len(script), len(run.arities)):
            scripts.extend(picks[:i] + (other,) for other in range(1, run.arities[i]))
        chosen = tuple((step, pick, of) for pick, of in zip(picks, run.arities, strict=True))
        found.append((Branch(run, branch.versions, branch.shapes, branch.picks + chosen), float(reward), bool(done)))
    return found


def past_bound(step: int) -> NotVerifiable:
    """The search's refusal when its work bound is passed at ``step``."""
    return NotVerifiable(f"the search over crafter's set-order despawn choices passed its bound of {WORK} engine "
                         f"steps at step {step} (the steps before agree)")


#: Object attributes that are links, not state (the world, its generator, a zombie's player).
_LINKS = frozenset({"world", "random", "player"})


def _value(value: Any) -> Any:
    """An attribute as a hashable value."""
    if isinstance(value, np.ndarray):
        return value.tobytes()
    if isinstance(value, dict):
        return tuple(value.items())
    if isinstance(value, set | frozenset):
        return tuple(sorted(value))
    return value


def state_key(branch: Branch) -> tuple[Any, ...]:
    """Everything a branch's future depends on: equal keys are the same game from here on.

    The world's materials and generator, each object slot (class and every attribute), the order its chunks
    are balanced in, the engine's step and unlocked achievements, and the noise shapes still in play.
    """
    engine = branch.engine
    world = engine._world
    state = world.random.get_state()
    objects = tuple(None if obj is None else (type(obj).__name__, tuple(
        (name, _value(value)) for name, value in sorted(vars(obj).items()) if name not in _LINKS))
        for obj in world._objects)
    return (world._mat_map.tobytes(), state[1].tobytes(), int(state[2]), int(state[3]), float(state[4]),
            objects, tuple(world._chunks), engine._step, engine._last_health, _value(engine._unlocked),
            branch.shapes)


def _distinct(kept: list[tuple[Branch, str]]) -> list[tuple[Branch, str]]:
    """One branch per game state, in order (the same state reached by other choices: either text version)."""
    if len(kept) < 2:
        return kept
    quick = [_quick_key(branch) for branch, _ in kept]  # the generator, where each object is
    counts = collections.Counter(quick)
    seen: dict[tuple[Any, ...], Branch] = {}
    distinct: list[tuple[Branch, str]] = []
    for (branch, text), key in zip(kept, quick, strict=True):
        if counts[key] > 1:  # the full key only where quick ones meet
            key += state_key(branch)
        if key in seen:
            seen[key].versions = tuple(sorted(set(seen[key].versions) | set(branch.versions)))
            continue
        seen[key] = branch
        distinct.append((branch, text))
    return distinct


def _varied(kept: list[tuple[Branch, str]]) -> list[tuple[Branch, str]]:
    """The branches, those that differ near the player first.

    Branches that differ only in creatures out of the player's reach (crafter updates none farther than twice
    its view) draw alike and show alike until the player comes near them; one of each near state is kept
    before a second, so a cut beam keeps what the next steps can tell apart.
    """
    groups: dict[tuple[Any, ...], list[tuple[Branch, str]]] = {}
    for one in kept:
        groups.setdefault(_near_key(one[0]), []).append(one)
    rounds = max(len(group) for group in groups.values())
    return [group[i] for i in range(rounds) for group in groups.values() if i < len(group)]


def _near_key(branch: Branch) -> tuple[Any, ...]:
    """The generator's state and every object within the player's reach (class, place, health)."""
    engine = branch.engine
    reach = 2 * int(max(engine._view))
    centre = engine._player.pos
    near = tuple((type(obj).__name__, int(obj.pos[0]), int(obj.pos[1]), int(obj.health))
                 for obj in engine._world.objects if int(np.abs(obj.pos - centre).sum()) < reach)
    state = engine._world.random.get_state()
    return int(state[2]), state[1].tobytes(), near


def _quick_key(branch: Branch) -> tuple[Any, ...]:
    """Part of ``state_key``, quick to make: the generator's state and the object slot at each cell."""
    world = branch.engine._world
    state = world.random.get_state()
    return int(state[2]), state[1].tobytes(), world._obj_map.tobytes()




class CrafterSearch:
    """The re-play ``leaderboard`` steps: every branch of crafter's despawn choices that agrees with the record.

    ``step`` returns the values of a branch that gives the recorded step (the first such), or those of the
    first branch when none does (the caller then reports the difference); it raises NotVerifiable when the
    search left branches out before, or passes its work bound.
    """

    def __init__(self, task: Task, game: Any, world: int, episode: Played, row: Row) -> None:
        self.game = game
        self.game.reset(seed=world)  # crafter.Env(seed=world)'s first world, and the reset's noop
        sizes = IMAGE_SIZES if row.date is None or row.date < PUBLIC_SINCE else IMAGE_SIZES[1:]
        self.branches = [root_branch(self.game.engine, sizes)]
        self.legal: list[str] | None = self.game.legal_actions()
        self.default: str = self.game.default_action
        self.limit: int = task.facts.max_steps
        self.parted = False  # no branch gave the latest step
        self.work = 0  # engine steps taken, all branches
        self.widest = 1  # the most branches that agreed at once
        self._left_out: int | None = None  # the step where branches past BEAM were left out
        self._episode = episode
        self._row = row
        self._k = 0

    def step(self, action: str) -> tuple[str, float, bool]:
        """One recorded step on every branch; the branches that give it are kept (at most BEAM)."""
        record = self._episode.steps[self._k]
        index = ACTIONS.index(action)
        stepped: list[tuple[Branch, float, bool]] = []
        for branch in self.branches:
            for one in _by_size(branch):
                stepped += successors(one, index, self._k, WORK - self.work - len(stepped))
        self.work += len(stepped)
        kept: list[tuple[Branch, str]] = []
        for branch, reward, done in stepped:
            versions, text = self._agreeing(branch, record, action, reward, done)
            if versions:
                branch.versions = versions
                kept.append((branch, text))
        kept = _distinct(kept)
        self._k += 1
        if not kept:
            self.parted = True
            if self._left_out is not None:
                raise NotVerifiable(f"more than {BEAM} choices of despawned creatures agreed with the record at step "
                                    f"{self._left_out} and only {BEAM} were kept; all of those part at step "
                                    f"{self._k - 1} (the steps before agree)")
            branch, reward, done = stepped[0]
            return crafter_texts(branch.engine)[branch.versions[0]], reward, done
        self.widest = max(self.widest, len(kept))
        if len(kept) > BEAM:
            self._left_out = self._k - 1 if self._left_out is None else self._left_out
            kept = _varied(kept)
        self.branches = [branch for branch, _ in kept[:BEAM]]
        _, reward, done = next(s for s in stepped if s[0] is self.branches[0])
        return kept[0][1], reward, done

    def _agreeing(self, branch: Branch, record: Any, action: str, reward: float,
                  done: bool) -> tuple[tuple[int, ...], str]:
        """The branch's text versions that give the recorded step, and its text (without a note)."""
        if recorded_number(record.reward) != reward or record.done != str(done):
            return (), ""
        texts = crafter_texts(branch.engine)
        noted = action != record.answer  # an invalid answer: the note, then the text
        versions = tuple(v for v in branch.versions
                         if (with_note(self._row.style, self._episode.early, record.answer, action, texts[v])
                             if noted else texts[v]) == record.observation)
        return versions, texts[versions[0]] if versions else ""

    def recorded(self, text: str) -> str:
        """The whole recorded text."""
        return text

    def progression(self) -> float:
        """Achievements unlocked of 22 (BALROG's score tracker): the recorded one where a branch gives it."""
        values = [len(b.engine.unlocked()) / 22 for b in self.branches]
        recorded = self._episode.data.get("progression")
        return float(recorded) if recorded in values else values[0]

    def close(self) -> None:
        """Close the game."""
        self.game.close()


def _agrees(search: CrafterSearch, episode: Played, count: int) -> bool:
    """Whether the search's world gives the first ``count`` recorded steps."""
    for step in episode.steps[:count]:
        search.step(step.answer if valid(step.answer, search.legal) else search.default)
        if search.parted:
            return False
    return True


def _first_giving(game: Any, task: Task, episode: Played, row: Row, worlds: Iterable[int]) -> int | None:
    """The first of ``worlds`` that gives the episode's first recorded steps (the quick test first)."""
    count = min(len(episode.steps), CRAFTER_PROBE)
    for world in worlds:
        if could_give(world, episode) and _agrees(CrafterSearch(task, game, world, episode, row), episode, count):
            return world
    return None


def find_world(episode: Played, row: Row, worlds: Iterable[int] | None = None) -> int | None:
    """The world seed, among ``worlds`` (by default the worker's candidates), that the re-play takes as the episode's.

    ``eval --instances`` plays the world ``verify`` re-plays: the same candidates, the same probe.
    """
    task = task_of(episode)
    game = compat_game(task, {})
    try:
        game.engine.disk_cache = False  # a world found is generated again when its episode is played
        return _first_giving(game, task, episode, row, crafter_candidates(episode, row) if worlds is None else worlds)
    finally:
        game.close()


def open_crafter(episode: Played, row: Row) -> Player:
    """The world of the worker's state (see the module doc), found among its recorded seeds' draws."""
    task = task_of(episode)
    if episode.process is None:
        raise NotVerifiable("its episode file names no process (process_num): its world seed came from the "
                            "worker's NumPy state")
    game = compat_game(task, {})  # one game for every candidate (made once: its textures, its views)
    try:
        game.engine.disk_cache = False  # candidates are kept in memory only: the re-play's reset reuses its world
        world = _first_giving(game, task, episode, row, crafter_candidates(episode, row))
        if world is not None:
            return CrafterSearch(task, game, world, episode, row)
    except BaseException:
        game.close()
        raise
    game.close()
    raise NotVerifiable(f"world seed not found: none of the first draws after the seeds recorded for its worker "
                        f"({episode.process}) gives its world, so it is likely the worker's first "
                        "episode (BALROG seeds a worker's NumPy state with a SHA-256 of its pid and the clock's "
                        "nanoseconds when it starts, recorded nowhere) or follows an episode that left no file")
