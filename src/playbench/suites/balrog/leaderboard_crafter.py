"""The Crafter episodes of a leaderboard row, re-played on the world BALROG's worker made.

``crafter.Env(seed=None)`` draws its world seed from NumPy's global state when ``make_env``
builds it, before the episode's seed is set. So the world follows from the state the worker was left in:
``np.random.seed(s)`` of the worker's previous episode, plus the draws made since (the first import of
BALROG's crafter module draws once, for a throw-away env). The candidates are the first draws after each
seed recorded for the same worker; the one whose world gives the first recorded observations is taken. A
worker's first episode draws from a seed made of the clock and the pid, recorded nowhere: not verifiable.
BALROG's text of the world changed on 2025-04-24 (the facing cell was read transposed before); the
episode is compared with the version whose text it shows. Crafter despawns one of a chunk's surplus
creatures by its position in a Python ``set`` (memory addresses); playbench keeps a stable order, so a
re-play that parts after such a choice is not verifiable from there.
"""

from typing import Any

import numpy as np

from playbench.core.task import Task
from playbench.core.verdict import NotVerifiable
from playbench.suites.balrog.leaderboard import Played, Player, Row
from playbench.suites.balrog.leaderboard_games import compat_game, task_of

#: How many draws after a worker's recorded seed a Crafter world seed may be (the crafter module's import
#: draws one for a throw-away env; an episode of another environment may draw a few).
CRAFTER_DRAWS = 4
#: The first recorded steps a candidate Crafter world must give, all of them, to be taken as the episode's.
CRAFTER_PROBE = 8


def crafter_candidates(episode: Played, row: Row) -> list[int]:
    """World seeds the worker's state could have given ``crafter.Env(seed=None)``: draws after its seeds."""
    found: list[int] = []
    for seed in row.seeds_of(episode.process, episode):
        state = np.random.RandomState(seed)
        for _ in range(CRAFTER_DRAWS):
            drawn = int(state.randint(0, 2**31 - 1))
            if drawn not in found:
                found.append(drawn)
    return found


def crafter_texts(engine: Any) -> tuple[str, str]:
    """BALROG's long-term Crafter text before 2025-04-24 (facing cell transposed) and after (fixed)."""
    from playbench.suites.crafter import describe

    win = describe.window(engine)
    if win.low_edge:  # BALROG's slice fails there (before: a breakpoint, so no such row was recorded)
        return describe.OUT_OF_MAP, describe.OUT_OF_MAP
    seen = _seen(win)
    player = engine.player
    px, py = int(player.pos[0]), int(player.pos[1])
    fx, fy = int(player.facing[0]), int(player.facing[1])
    width, height = engine.semantic().shape
    # Before the fix BALROG read semantic[target_y, target_x] of its 9x7 window: the cell (fy - 1, fx + 1)
    # away, when that cell is inside the window (which the world's far edges may cut).
    x, y = px + fy - 1, py + fx + 1
    transposed = engine.id_names()[int(engine.semantic()[x, y])] if x < width and y < height else "nothing"
    status = describe.SLEEPING if win.sleeping else describe.DIED if win.dead else ""

    def text(target: str) -> str:
        return ((status + "\n\n" if status else "") + "\n\n" + seen + f"\n\nYou face {target} at your front.").strip()

    return text(transposed), text(win.target if win.target is not None else "nothing")


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


class CrafterPlayer:
    """Crafter on a given world seed, with BALROG's text of the versions still consistent with the record."""

    def __init__(self, task: Task, world: int, versions: tuple[int, ...] = (0, 1)) -> None:
        self.game = compat_game(task, {})
        self.game.reset(seed=world)  # crafter.Env(seed=world)'s first world, and the reset's noop
        self.legal: list[str] | None = self.game.legal_actions()
        self.default: str = self.game.default_action
        self.limit: int = task.facts.max_steps
        self.versions = versions  # 0: before 2025-04-24, 1: after; narrowed as the texts part
        self.steps = 0
        self.ambiguous: tuple[int, int] | None = None  # (step, creatures) of the first set-order despawn
        self._watch_despawns()

    def _watch_despawns(self) -> None:
        engine = self.game.engine
        original = engine._balance_object

        def balance(chunk: Any, objs: Any, cls: Any, material: str, span: int, despan: int, spawn: float,
                    despawn: float, ctor: Any, target_fn: Any) -> None:
            if self.ambiguous is None:
                self._check_despawn(engine, chunk, objs, cls, material, despan, despawn, target_fn)
            original(chunk, objs, cls, material, span, despan, spawn, despawn, ctor, target_fn)

        engine._balance_object = balance

    def _check_despawn(self, engine: Any, chunk: Any, objs: Any, cls: Any, material: str, despan: int,
                       despawn: float, target_fn: Any) -> None:
        """Note a despawn whose victim depends on the set's order: two creatures or more, one of them away."""
        creatures = [obj for obj in objs if isinstance(obj, cls)]
        if len(creatures) < 2:
            return
        low, high = target_fn(len(creatures), engine._world.mask(*chunk, material).sum())
        if len(creatures) < int(low) or len(creatures) <= int(high):
            return
        random = engine._world.random
        state = random.get_state()
        draw = random.uniform()
        random.set_state(state)  # only peeked: the engine draws it itself
        if draw < despawn and any(engine._player.distance(obj.pos) >= despan for obj in creatures):
            self.ambiguous = (self.steps, len(creatures))

    def texts(self) -> tuple[str, ...]:
        """The text of each version still in play."""
        both = crafter_texts(self.game.engine)
        return tuple(both[v] for v in self.versions)

    def step(self, action: str) -> tuple[str, float, bool]:
        """One action; the text of the first version still in play (narrowed by ``keep``)."""
        _, reward, terminated, truncated, _ = self.game.step(action)
        self.steps += 1
        return self.texts()[0], float(reward), bool(terminated or truncated)

    def keep(self, recorded: str) -> None:
        """Keep only the versions whose text is the recorded one (all of them when none is)."""
        texts = crafter_texts(self.game.engine)
        matching = tuple(v for v in self.versions if texts[v] == recorded)
        if matching:
            self.versions = matching

    def progression(self) -> float:
        """Achievements unlocked of 22 (BALROG's score tracker)."""
        return float(self.game.progression())

    def close(self) -> None:
        """Close the game."""
        self.game.close()


def _prefix(task: Task, world: int, episode: Played, row: Row, count: int) -> int:
    """How many of the first ``count`` recorded steps the world gives (either text version)."""
    from playbench.suites.balrog.leaderboard import valid, with_note

    player = CrafterPlayer(task, world)
    try:
        for k, step in enumerate(episode.steps[:count]):
            action = step.answer if valid(step.answer, player.legal) else player.default
            _, reward, done = player.step(action)
            texts = [with_note(row.style, episode.early, step.answer, action, t) if action != step.answer else t
                     for t in crafter_texts(player.game.engine)]
            if step.observation not in texts or float(step.reward) != reward or step.done != str(done):
                return k
        return count
    finally:
        player.close()


class ReplayedCrafter:
    """The player ``leaderboard`` steps: narrows the text version each step, and names set-order despawns."""

    def __init__(self, player: CrafterPlayer, episode: Played, row: Row) -> None:
        self.player = player
        self.legal = player.legal
        self.default = player.default
        self.limit = player.limit
        self._steps = episode.steps
        self._episode = episode
        self._row = row
        self._k = 0

    def step(self, action: str) -> tuple[str, float, bool]:
        """One action; the text of the version that gives the recorded one, where one does."""
        from playbench.suites.balrog.leaderboard import with_note

        step = self._steps[self._k]
        _, reward, done = self.player.step(action)
        recorded = step.observation
        if action != step.answer:  # the note is compared by the caller; the versions by the text after it
            texts = crafter_texts(self.player.game.engine)
            noted = [with_note(self._row.style, self._episode.early, step.answer, action, t) for t in texts]
            for version, text in enumerate(noted):
                if text == recorded:
                    recorded = texts[version]
        self.player.keep(recorded)
        text = self.player.texts()[0]
        self._k += 1
        if self.player.ambiguous is not None and text != recorded:
            at, creatures = self.player.ambiguous
            raise NotVerifiable(f"at step {at} crafter despawned one of {creatures} creatures by their order in a "
                                "Python set (memory addresses, not reproducible: SmartPlay B12); the re-play parts "
                                f"from step {self._k - 1} (the steps before agree)")
        return text, reward, done

    def recorded(self, text: str) -> str:
        """The whole recorded text."""
        return text

    def progression(self) -> float:
        """Achievements unlocked of 22."""
        return self.player.progression()

    def close(self) -> None:
        """Close the game."""
        self.player.close()


def open_crafter(episode: Played, row: Row) -> Player:
    """The world of the worker's state (see the module doc), found among its recorded seeds' draws."""
    task = task_of(episode)
    if episode.process is None:
        raise NotVerifiable("its episode file names no process (process_num): its world seed came from the "
                            "worker's NumPy state")
    count = min(len(episode.steps), CRAFTER_PROBE)
    for world in crafter_candidates(episode, row):
        if _prefix(task, world, episode, row, count) == count:
            return ReplayedCrafter(CrafterPlayer(task, world), episode, row)
    raise NotVerifiable(f"world seed drawn from the clock: no seed recorded for its worker ({episode.process}) "
                        "gives its world, so it is the worker's first episode (BALROG seeds a worker's NumPy "
                        "state from the time and pid, recorded nowhere) or follows an episode that left no file")
