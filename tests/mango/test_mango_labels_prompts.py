"""Labels (§3, §8.2), the token-budget prefix (§5.1), prompts byte for byte (§5.3) and Table 3 (§8.3)."""

from pathlib import Path

import pytest

from playbench.suites.mango.formats import open_data
from playbench.suites.mango.labels import count_labels
from playbench.suites.mango.prompts import build_prompt, df_question, py_list, rf_question
from playbench.suites.mango.stats import game_stats
from playbench.suites.mango.walkthrough import parse_walkthrough, walkthrough_prefix

# game: (DF e/h @70, RF e/h @70, c, tokens, DF e/h @c, RF e/h @c) from spec §8.2
TABLE_82 = {
    "905": ((11, 5), (11, 5), 70, 1368, (11, 5), (11, 5)),
    "lostpig": ((22, 14), (22, 14), 57, 12293, (11, 5), (11, 5)),
    "night": ((633, 59), (380, 0), 70, 4417, (633, 59), (380, 0)),
    "omniquest": ((536, 1198), (536, 52), 70, 3587, (536, 1198), (536, 52)),
    "partyfoul": ((24, 0), (12, 0), 24, 7138, (12, 0), (12, 0)),
    "plundered": ((450, 52), (309, 6), 33, 14833, (49, 11), (49, 11)),
    "snacktime": ((12, 0), (12, 0), 70, 2989, (12, 0), (12, 0)),
    "spirit": ((354, 87), (354, 87), 51, 68927, (186, 39), (186, 39)),
    "temple": ((178, 69), (178, 69), 47, 12125, (48, 33), (48, 33)),
    "zork1": ((351, 46), (324, 0), 70, 15965, (351, 46), (324, 0)),
}


@pytest.fixture(scope="module")
def games(shared_data: Path):
    return {g.name: g for g in open_data(shared_data / "mango")}


def _eh(counts):
    return counts["easy"], counts["hard"]


@pytest.mark.parametrize("name", sorted(TABLE_82))
def test_labels_and_prefix_match_spec(games, name):
    df70, rf70, c, tokens, dfc, rfc = TABLE_82[name]
    g = games[name]
    assert _eh(count_labels(g.all2all, 70)) == df70
    assert _eh(count_labels(g.all_pairs, 70)) == rf70
    prefix = walkthrough_prefix(g.walkthrough_text)
    assert (prefix.cutoff, prefix.tokens) == (c, tokens)
    assert _eh(count_labels(g.all2all, c)) == dfc
    assert _eh(count_labels(g.all_pairs, c)) == rfc


def test_prefix_rule(games):
    # lostpig: the budget ends inside step 58's block, so the second-to-last "NUM: " read is 57
    p = walkthrough_prefix(games["lostpig"].walkthrough_text)
    assert p.text.startswith("\n==>STEP NUM: 0\n==>ACT: Init\n")
    assert "==>STEP NUM: 57\n" in p.text and "NUM: 58" not in p.text
    assert "=" * 11 not in p.text
    assert not p.text.endswith("==>STEP ")
    # paper rule counts tokens with the separators kept, so it reads fewer steps here
    assert walkthrough_prefix(games["lostpig"].walkthrough_text, "paper").cutoff == 56
    # a walkthrough shorter than the cutoff: whole text minus its final line, cutoff stays 70
    short = walkthrough_prefix(games["905"].walkthrough_text)
    assert short.cutoff == 70 and "==>STEP NUM: 22\n" in short.text
    assert short.text.endswith("RESTART, RESTORE a saved game or QUIT\n")


def test_python_list_printing():
    assert py_list(["south", "enter car"]) == "['south', 'enter car']"
    assert py_list(["bob's room"]) == '["bob\'s room"]'
    assert py_list(["it's \"x\""]) == "['it\\'s \"x\"']"
    assert py_list(["a\uff08b"]) == "['a\uff08b']"


def test_prompts_byte_for_byte(games):
    g = games["905"]
    prefix = walkthrough_prefix(g.walkthrough_text)
    skeleton = g.all2all[0]
    q = df_question(skeleton["src_node"], [s["action"] for s in skeleton["path_details"]])
    prompt = build_prompt(prefix.text, g.actions, g.locations, q)
    expected_tail = (
        "\n\nThe allowed actions are: ['south', 'north', 'west', 'east', 'enter car'].\n"
        "The list of locations are: ['living room', 'bedroom', 'inside of the car', 'driveway', 'bathroom'].\n"
        "!!! Starting from place \"bedroom\", perform a list of action ['south'], where are you now? Describe the "
        "trajectory in a python list of python dictionary with keys 'location_before', 'action' and "
        "'location_after'. Start your response with '['."
    )
    assert prompt == "!!! Here is a walkthrough of a text game:\n" + prefix.text + expected_tail
    assert prompt.startswith("!!! Here is a walkthrough of a text game:\n\n==>STEP NUM: 0\n")
    rf = rf_question("bedroom", "bathroom")
    assert rf == (
        "!!! Can you find a path from \"bedroom\" to \"bathroom\", and format the output as a python list of python "
        "dictionary with keys 'location_before', 'action' and 'location_after'? Start your response with '['."
    )
    paper = build_prompt("\nX", ["north"], ["hall"], rf_question("a", "b", "paper"), "paper")
    assert "The list of places are: ['hall']." in paper and "How can you go from a to b?" in paper


@pytest.mark.parametrize(
    ("name", "row"),
    [
        ("905", (5, 7, 1.88, 22, 11, 5, 11, 5)),
        ("partyfoul", (4, 8, 1.92, 56, 24, 0, 12, 0)),
        ("snacktime", (4, 6, 1.50, 34, 12, 0, 12, 0)),
    ],
)
def test_table3_rows(games, name, row):
    s = game_stats(games[name])
    keys = ("locations", "edges", "avg_len", "steps", "df_easy", "df_hard", "rf_easy", "rf_hard")
    assert tuple(s[k] for k in keys) == row


def test_walkthrough_steps_contiguous(games):
    for g in games.values():
        steps = parse_walkthrough(g.walkthrough_text)
        assert [s.num for s in steps] == list(range(len(steps)))
        assert steps[0].action == "Init"
