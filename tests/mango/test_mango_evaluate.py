"""The evaluator in fixed and compat modes on answer folders built from the sample mazes (spec §6–7)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from playbench.suites.mango.aggregate import pairwise
from playbench.suites.mango.evaluate import GameEvaluator, similarity
from playbench.suites.mango.formats import open_data
from playbench.suites.mango.maze import OPPOSITE
from playbench.suites.mango.parse import parse_answer
from playbench.suites.mango.prompts import format_trajectory
from playbench.suites.mango.results import load_answers, score_items


def traj(*steps):
    return format_trajectory(list(steps))


@pytest.fixture(scope="module")
def games(shared_data: Path):
    return {g.name: g for g in open_data(shared_data / "mango")}


def _ev(g, mode):
    return GameEvaluator(g.edges, g.actions, g.all2all, g.all_pairs, mode)


def test_parser_never_executes_and_never_crashes(tmp_path: Path):
    marker = tmp_path / "pwned"
    hostile = [
        f"[__import__('os').system('touch {marker}')]",
        "[(lambda: 1)()]",
        "[" + "{" * 5000 + "]",
        "[" + "1, " * 200_000 + "]",
        "[1, 2, 3]",
        "['a', {'location_before': 'x', 'action': 'y', 'location_after': 'z'}]",
        "[{'location_before': 1, 'action': 'y', 'location_after': 'z'}]",
        "[{'location_before': 'x'}]",
        "[]",
        "no list here",
        "[9**9**9]",
        None,
    ]
    for text in hostile:
        assert not parse_answer(text).ok
    assert not marker.exists()
    ok = parse_answer(" [{'location_before': 'a', 'action': 'north', 'location_after': 'b'},] trailing")
    assert ok.ok and ok.steps[0].after == "b"


def test_similarity():
    assert similarity("House", "the house") == pytest.approx(1 - 4 / 9)
    assert similarity("", "") == 0.0
    assert similarity("North", "north") == 1.0


def test_fixed_and_compat_df_cases(games):
    g = games["905"]
    fixed, compat = _ev(g, "fixed"), _ev(g, "compat")
    sid = "294beb47c5ff764ce0bde567f7cf8f8b40de61550724b201cda3df0dc1dc7317"  # bedroom -south-> bathroom
    right = traj(("bedroom", "south", "bathroom"))
    wrong = traj(("bedroom", "south", "living room"))
    cased = traj(("Bedroom", "South", "Bathroom"))
    s = fixed.score("df", sid, 70, right)
    assert (s.status, s.difficulty, s.strict, s.loose, s.reasoning, s.path_len) == ("scored", "easy", 1, 1, 1, 1)
    s = fixed.score("df", sid, 70, wrong)
    assert (s.strict, s.reasoning) == (0, 0) and 0 < s.loose < 1
    assert compat.score("df", sid, 70, wrong).strict == 1  # bug B1: the answer is never read
    s_f, s_c = fixed.score("df", sid, 70, cased), compat.score("df", sid, 70, cased)
    assert (s_f.strict, s_f.reasoning) == (1, 1)
    assert s_c.reasoning == 0  # bug B4: case-sensitive reasoning
    # DF reasoning (fixed) requires the question's actions; compat does not check them (bug B8)
    other = traj(("bedroom", "east", "living room"), ("living room", "west", "bedroom"), ("bedroom", "south", "bathroom"))
    assert fixed.score("df", sid, 70, other).reasoning == 0
    assert compat.score("df", sid, 70, other).reasoning == 1
    assert fixed.score("df", "nope", 70, right).status == "id_error"
    assert fixed.score("df", sid, 70, "I am lost").status == "parse_error"


def test_hard_and_unanswerable(games):
    g = games["905"]
    fixed, compat = _ev(g, "fixed"), _ev(g, "compat")
    hard = next(s for s in g.all2all if s["min_step_forward_answerable"] > 70)
    steps = [(x["prev_node"], x["action"], x["node"]) for x in hard["path_details"]]
    s = fixed.score("df", hard["id"], 70, traj(*steps))
    assert (s.difficulty, s.strict, s.reasoning) == ("hard", 1, 1)
    late = next(p for p in g.all_pairs if 5 < p["min_step_total_answerable"] < 9999)
    assert fixed.score("rf", late["id"], 5, "").status == "unanswerable"
    assert compat.score("rf", late["id"], 5, "").status == "parse_error"  # bug B5
    assert compat.score("rf", late["id"], 5, traj(("a", "north", "b"))).status == "step_num_error"


def _missing_reverse(games):
    """An RF question D->S whose one-hop answer is the unverified reverse of a directional edge S->D."""
    for g in games.values():
        triples = {(e["src_node"], e["action"], e["dst_node"]) for e in g.edges}
        pairs = {(p["src_node"], p["dst_node"]): p for p in g.all_pairs}
        for e in g.edges:
            opp = OPPOSITE.get(e["action"])
            if opp is None:
                continue
            s, d = e["src_node"], e["dst_node"]
            if any(t[0] == d and t[1] == opp for t in triples):
                continue  # the reverse action exists from d somewhere
            pair = pairs.get((d, s))
            if pair and pair["min_step_total_answerable"] <= 70:
                return g, pair, traj((d, opp, s))
    raise AssertionError("no such edge in the sample mazes")


def test_rf_cases(games):
    g, pair, reverse_answer = _missing_reverse(games)
    fixed, compat = _ev(g, "fixed"), _ev(g, "compat")
    s = fixed.score("rf", pair["id"], 70, reverse_answer)
    assert (s.strict, s.loose, s.reasoning) == (0, 0, 0)  # not in the map
    s = compat.score("rf", pair["id"], 70, reverse_answer)
    assert (s.strict, s.reasoning) == (1, 1)  # bug B3: auto-reversed edge accepted
    # a correct route, then one with a paraphrased action: loose passes, strict fails
    route = next(r for r in g.all2all if (r["src_node"], r["dst_node"]) == (pair["src_node"], pair["dst_node"])
                 and r["min_step_total_answerable"] <= 70)
    steps = [(x["prev_node"], x["action"], x["node"]) for x in route["path_details"]]
    s = fixed.score("rf", pair["id"], 70, traj(*steps))
    assert (s.strict, s.loose, s.reasoning) == (1, 1, 1)
    assert s.path_len == min(r["step_count"] for r in g.all2all if (r["src_node"], r["dst_node"]) == (pair["src_node"], pair["dst_node"]))
    para = [(b, "go " + a, d) for b, a, d in steps]
    s = fixed.score("rf", pair["id"], 70, traj(*para))
    assert (s.strict, s.loose) == (0, 1)
    s = fixed.score("rf", pair["id"], 70, traj(*[(b.title(), a.upper(), d) for b, a, d in steps]))
    assert (s.strict, s.reasoning) == (1, 1)  # case-insensitive in fixed mode


def test_rf_compat_loose_partial_credit(games):
    g = games["905"]
    compat = _ev(g, "compat")
    pair = next(p for p in g.all_pairs if (p["src_node"], p["dst_node"]) == ("bedroom", "bathroom"))
    s = compat.score("rf", pair["id"], 70, traj(("bedroom", "east", "living room")))
    assert s.strict == 0 and 0 < s.loose < 1  # bug B7: similarity of the end location
    s = compat.score("rf", pair["id"], 70, traj(("bedroom", "walk", "bathroom")))
    assert s.arbitrary_choice  # bug B6: no exact action, an arbitrary one is used


def _write(folder: Path, game: str, sid: str, cutoff: int, task: str, answer, key="response", extra=None):
    d = folder / game
    d.mkdir(parents=True, exist_ok=True)
    rec = {"sample_id": sid, "game_name": game, "task": task, "model_cutoff_num": cutoff,
           "min_step_total_answerable": 0, "answerable": True, key: answer, **(extra or {})}
    (d / f"result_sample_id_{sid}.json").write_text(json.dumps(rec))


@pytest.fixture()
def answer_folder(tmp_path: Path, games):
    root = tmp_path / "answers"
    df = root / "model_desti_finding_t1"
    g = games["905"]
    sid = "294beb47c5ff764ce0bde567f7cf8f8b40de61550724b201cda3df0dc1dc7317"
    hard = next(s for s in g.all2all if s["min_step_forward_answerable"] > 70)
    _write(df, "905", sid, 70, "desti_finding", traj(("bedroom", "south", "bathroom")))
    _write(df, "905", hard["id"], 70, "desti_finding", traj(("x", "y", "nowhere")))
    _write(df, "905", "f" * 64, 70, "desti_finding", traj(("bedroom", "south", "bathroom")))
    easy = [s for s in g.all2all if s["min_step_forward_answerable"] <= 70 and s["id"] != sid]
    _write(df, "905", easy[0]["id"], 70, "desti_finding", "[{'location_before': 'a'}, 3]")
    right = [(x["prev_node"], x["action"], x["node"]) for x in easy[1]["path_details"]]
    _write(df, "905", easy[1]["id"], 70, "desti_finding", traj(*right), key="answer", extra={"marker": "d"})
    late = next(s for s in easy[2:] if 5 < s["min_step_total_answerable"])
    _write(df, "905", late["id"], 5, "desti_finding", "")
    (df / "905" / "result_sample_id_broken.json").write_text("{not json")
    return root, df


def test_score_folder_fixed_and_compat(answer_folder, shared_data: Path):
    root, df = answer_folder
    data = shared_data / "mango"
    fixed = {r["file"]: r for r in score_items(load_answers(df, "fixed"), data, "fixed")}
    compat = {r["file"]: r for r in score_items(load_answers(df, "compat"), data, "compat")}
    statuses = sorted(r["status"] for r in fixed.values())
    assert statuses == sorted(["scored", "scored", "id_error", "parse_error", "scored", "unanswerable", "parse_error"])
    assert sorted(r["status"] for r in compat.values()) == sorted(
        ["scored", "scored", "id_error", "parse_error", "parse_error", "parse_error", "parse_error"]
    )
    # the 'answer' key is read in fixed mode, ignored in compat (bug B2); the bogus id parses first in compat
    d_file = next(f for f in fixed if json.loads((df / f).read_text()).get("marker") == "d")
    assert fixed[d_file]["status"] == "scored" and compat[d_file]["status"] == "parse_error"
    f_file = next(f for f in fixed if "f" * 64 in f)
    assert compat[f_file]["status"] == "id_error"


def test_score_command_json(answer_folder, shared_data: Path):
    root, _ = answer_folder
    cmd = [sys.executable, "-m", "playbench.cli.main", "mango", "score", str(root / "model_desti_finding_t1"),
           "--data", str(shared_data / "mango"), "--json"]
    whole = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    assert set(whole) == {"mode", "sets"} and whole["mode"] == "fixed" and len(whole["sets"]) == 1
    out = next(iter(whole["sets"].values()))  # the same shape with one answer set as with several
    assert set(out) >= {"overall", "games", "errors"}
    assert out["overall"]["all"]["n"] == 7 and out["overall"]["all"]["valid"] == 3
    assert out["overall"]["easy"]["success_rate"] == 1.0
    assert out["overall"]["hard"]["success_rate"] == 0.0
    assert out["errors"]["parse"] == 2 and out["errors"]["id"] == 1 and out["errors"]["unanswerable"] == 1
    for key in ("n", "valid", "success_rate", "loose", "reasoning", "weighted", "path_len"):
        assert key in out["overall"]["all"]
    compat_whole = json.loads(subprocess.run(cmd + ["--compat"], capture_output=True, text=True, check=True).stdout)
    assert compat_whole["mode"] == "compat"
    compat = next(iter(compat_whole["sets"].values()))
    assert compat["overall"]["all"]["success_rate"] == 1.0  # bug B1
    official = json.loads(subprocess.run(cmd[:-1] + ["--compat", "--format", "official"], capture_output=True,
                                         text=True, check=True).stdout)
    a = official["games"]["905"]["all"]
    assert a["total_task"] == 7 and a["valid_task"] == 2 and a["strict_score_average"] == 1.0
    assert a["parsing_error"] == 4 and a["parsing_error_average"] == pytest.approx(4 / 7)
    assert a["id_error"] == 1


def test_pairwise_intersection():
    def row(i, diff, strict, status="scored"):
        return {"game": "g", "task": "df", "id": str(i), "status": status, "difficulty": diff,
                "strict": strict, "reasoning": strict}

    a = [row(1, "easy", 1), row(2, "easy", 0), row(3, "hard", 1), row(4, "easy", 1)]
    b = [row(1, "easy", 0), row(2, "easy", 0), row(3, "hard", 1), row(4, "easy", 1, "parse_error")]
    out = pairwise(a, b)
    assert out["easy"] == {"n": 2, "a": 0.5, "b": 0.0, "a_reasoning": 0.5, "b_reasoning": 0.0}
    assert out["hard"]["n"] == 1
