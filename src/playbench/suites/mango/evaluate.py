"""Scoring one answer: the corrected evaluator (``fixed``) and the official one, bugs included (``compat``).

Spec §7. ``fixed`` is playbench's default; ``compat`` reproduces the camera-ready ``mango-eval`` (bugs
B1, B3–B8 of §7.8 on purpose; B9 and B10 are not reproduced: execution keeps a set of locations, and a
malformed list element is a parse error rather than a crash).
"""

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast

from playbench.suites.mango.formats import JsonObject
from playbench.suites.mango.labels import difficulty
from playbench.suites.mango.maze import Maze
from playbench.suites.mango.parse import Parsed, TrajectoryStep, parse_answer
from playbench.suites.mango.prompts import KEYS

Mode = Literal["fixed", "compat"]
TaskKind = Literal["df", "rf"]
Status = Literal["scored", "parse_error", "id_error", "unanswerable", "step_num_error"]


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions of characters)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def similarity(a: str, b: str) -> float:
    """1 − d/ℓ on lower-cased strings (ℓ the longer length); 0 when both are empty (spec §7.1)."""
    a, b = a.lower(), b.lower()
    longest = max(len(a), len(b))
    if longest == 0:
        return 0.0
    return 1.0 - edit_distance(a, b) / longest


def _norm(name: str) -> str:
    return name.strip().lower()


@dataclass
class Score:
    """The outcome of scoring one record."""

    status: Status
    task: TaskKind
    difficulty: str | None = None  # easy / hard for scored records
    strict: float = 0.0
    loose: float = 0.0
    reasoning: float = 0.0
    path_len: int = 0
    parse_error: str | None = None
    arbitrary_choice: bool = False  # compat: a hash-order-dependent choice was made (bug B6)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        """Scored records are the valid ones."""
        return self.status == "scored"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types."""
        return asdict(self)


class GameEvaluator:
    """Scores answers for one game's maze and skeletons in one mode."""

    def __init__(
        self,
        edges: list[JsonObject],
        actions: list[str],
        all2all: list[JsonObject],
        all_pairs: list[JsonObject],
        mode: Mode = "fixed",
        keys: tuple[str, str, str] = KEYS["release"],
    ) -> None:
        self.mode = mode
        self.keys = keys
        self.maze = Maze(edges, actions)
        self.graph = self.maze.with_auto_reverses() if mode == "compat" else self.maze
        if mode == "compat":
            # the original iterates a hash-ordered set: sorted order stands in for it (bug B6)
            self.candidates = sorted({e["action"] for e in self.graph.edges})
        else:
            self.candidates = list(actions)
        self._candidate_set = {_norm(a): a for a in self.candidates}
        self.df = {r["id"]: r for r in all2all}
        self.rf = {r["id"]: r for r in all_pairs}
        self._shortest: dict[str, dict[str, int]] = {}

    def shortest(self, src: str, dst: str) -> int:
        """The RF reference length: shortest route from S to D in the map (0 if none)."""
        if src not in self._shortest:
            self._shortest[src] = self.maze.shortest_lengths(src)
        return self._shortest[src].get(dst, 0)

    def skeleton(self, task: TaskKind, sample_id: str) -> JsonObject | None:
        """The skeleton record with this id, or None."""
        return (self.df if task == "df" else self.rf).get(sample_id)

    # -- action matching ---------------------------------------------------------------------

    def closest(self, action: str) -> tuple[str, bool]:
        """The candidate most similar to ``action`` and whether several tied for best (earliest wins)."""
        best, best_sim, tie = self.candidates[0], -1.0, False
        for cand in self.candidates:
            sim = similarity(action.strip() if self.mode == "fixed" else action, cand)
            if sim > best_sim:
                best, best_sim, tie = cand, sim, False
            elif sim == best_sim:
                tie = True
        return best, tie

    # -- one record --------------------------------------------------------------------------

    def score(self, task: TaskKind, sample_id: str, cutoff: int, answer: str | None) -> Score:
        """Score one answer to question ``sample_id`` asked with a prefix of ``cutoff`` steps."""
        skeleton = self.skeleton(task, sample_id)
        if self.mode == "compat":
            parsed = parse_answer(answer, self.keys)  # parsed before the answerability check (bug B5)
            if not parsed.ok:
                return Score("parse_error", task, parse_error=parsed.error)
            if skeleton is None:
                return Score("id_error", task)
            label = difficulty(skeleton, cutoff)
            if label is None:
                return Score("step_num_error", task)
        else:
            if skeleton is None:
                return Score("id_error", task)
            label = difficulty(skeleton, cutoff)
            if label is None:
                return Score("unanswerable", task)
            parsed = parse_answer(answer, self.keys)
            if not parsed.ok:
                return Score("parse_error", task, parse_error=parsed.error)
        out = self._score_df(skeleton, parsed) if task == "df" else self._score_rf(skeleton, parsed)
        out.difficulty = label
        return out

    def _score_rf(self, skeleton: JsonObject, parsed: Parsed) -> Score:
        src, dst = skeleton["src_node"], skeleton["dst_node"]
        steps = parsed.steps
        out = Score("scored", "rf", path_len=self.shortest(src, dst))
        mapped_loose = []
        for s in steps:
            cand, tie = self.closest(s.action)
            out.arbitrary_choice |= tie and self.mode == "compat"
            mapped_loose.append(cand)
        final_loose = self.graph.run(src, mapped_loose)
        if self.mode == "compat":
            mapped_strict = []
            for s in steps:
                exact = self._candidate_set.get(s.action.lower())
                if exact is None:  # the original takes the first element of a set (bug B6)
                    out.arbitrary_choice = True
                    exact = self.candidates[0]
                mapped_strict.append(exact)
            out.strict = float(dst in self.graph.run(src, mapped_strict))
            # bug B7: partial credit for ending somewhere with a similar name
            out.loose = max((similarity(loc, dst) for loc in final_loose), default=0.0)
            out.reasoning = float(self._chain_ok(steps, src, {dst}, [s.action for s in steps]))
        else:
            names = [self._candidate_set.get(_norm(s.action)) for s in steps]
            out.strict = float(None not in names and dst in self.graph.run(src, cast(list[str], names)))
            out.loose = float(dst in final_loose)
            out.reasoning = float(self._chain_ok(steps, src, {dst}, [_norm(s.action) for s in steps]))
        return out

    def _score_df(self, skeleton: JsonObject, parsed: Parsed) -> Score:
        src = skeleton["src_node"]
        given = [s["action"] for s in skeleton["path_details"]]
        steps = parsed.steps
        dests = self.maze.run(src, given) if self.mode == "fixed" else self.graph.run(src, given)
        out = Score("scored", "df", path_len=len(given))
        if self.mode == "compat":
            out.strict = out.loose = 1.0  # bug B1: the answer is never read
            # bug B8: the trajectory's own actions are used, not checked against the question
            out.reasoning = float(self._chain_ok(steps, src, dests, [s.action for s in steps]))
            return out
        answer = _norm(steps[-1].after)
        out.strict = float(answer in dests)
        out.loose = max((similarity(answer, d) for d in dests), default=0.0)
        ok = len(steps) == len(given) and all(self.closest(s.action)[0] == g for s, g in zip(steps, given, strict=False))
        out.reasoning = float(ok and self._chain_ok(steps, src, dests, given))
        return out

    def _chain_ok(self, steps: tuple[TrajectoryStep, ...], src: str, ends: set[str], actions: list[str]) -> bool:
        """The trajectory starts at ``src``, chains, uses map edges with ``actions`` and ends in ``ends``."""
        norm: Callable[[str], str]
        if self.mode == "compat":  # bug B4: case-sensitive names, endpoints untrimmed
            norm = str
        else:
            norm = _norm
        if not steps or norm(steps[0].before) != src or norm(steps[-1].after) not in ends:
            return False
        for i, (s, a) in enumerate(zip(steps, actions, strict=True)):
            if i + 1 < len(steps) and norm(s.after) != norm(steps[i + 1].before):
                return False
            if (norm(s.before), a, norm(s.after)) not in self.graph.triples:
                return False
        return True
