import time

from playbench.suites.grasp.parse import ParserOptions, parse_plan, tokens


def test_tokens_whole_words_and_diagonals_first():
    assert tokens("UPLEFT up-left Up_x xUP UP2 upright, take. Drop") == ["UPLEFT", "UP", "LEFT", "UPRIGHT", "TAKE",
                                                                       "DROP"]


def test_rule1_first_list_with_token_quotes_and_comments():
    text = 'Grid at [3, 4].\n```python\n["UP", "TAKE",  # go up\n "LEFT" // left\n, (2,3), "DROP"]\n```\n[DOWN]'
    p = parse_plan(text)
    assert p.rule == "list" and p.plan == ["UP", "TAKE", "LEFT", "DROP"]
    keep = parse_plan(text, ParserOptions(comments="keep"))
    assert keep.plan == ["UP", "TAKE", "UP", "LEFT", "LEFT", "DROP"]  # the comments name actions too


def test_list_choice_options():
    text = "[UP, TAKE] then [LEFT, LEFT, TAKE] and [DOWN]"
    assert parse_plan(text).plan == ["UP", "TAKE"]
    assert parse_plan(text, ParserOptions(list="last")).plan == ["DOWN"]
    assert parse_plan(text, ParserOptions(list="longest")).plan == ["LEFT", "LEFT", "TAKE"]


def test_nested_brackets_are_not_candidates():
    p = parse_plan("[[UP, TAKE], [DOWN]]")
    assert p.rule == "list" and p.plan == ["UP", "TAKE"]


def test_rule2_unclosed_list():
    p = parse_plan("My plan: [UP, TAKE, LEFT, # careful\n TAKE, DROP")
    assert p.rule == "unclosed" and p.plan == ["UP", "TAKE", "LEFT", "TAKE", "DROP"]


def test_rule3_numbered_list():
    text = "Plan:\n1. **Move UP** to (6,4)\n2) TAKE the energy\n  3. **LEFT**\n4. Then DROP\nI go DOWN later."
    p = parse_plan(text)
    assert p.rule == "numbered" and p.plan == ["UP", "TAKE", "LEFT"]


def test_rule4_nothing():
    p = parse_plan("I cannot solve this. Moving up would be nice.")
    assert p.failed and p.plan == [] and p.rule == "none"
    assert parse_plan("").failed


def test_list_only_and_word_modes():
    text = "1. UP\n2. take"
    assert parse_plan(text, ParserOptions(mode="list-only")).failed
    assert parse_plan(text, ParserOptions(mode="all-upper")).plan == ["UP"]
    assert parse_plan(text, ParserOptions(mode="all-words")).plan == ["UP", "TAKE"]


def test_hostile_text_is_parsed_never_executed(tmp_path):
    marker = tmp_path / "pwned"
    payloads = [
        f"[__import__('os').system('touch {marker}'), UP]",
        f"```python\nimport os; os.system('touch {marker}')\n```\n[eval('1'), exec('x'), DROP]",
        "{{7*7}} ${jndi:ldap://x} '; DROP TABLE users; --",
    ]
    results = [parse_plan(t) for t in payloads]
    assert results[0].plan == ["UP"] and results[1].plan == ["DROP"]
    assert results[2].failed  # prose mentioning DROP outside any list is not a plan
    assert not marker.exists()


def test_huge_outputs_are_linear():
    huge = "[" + "UP, " * 200_000 + "DROP]"
    start = time.perf_counter()
    p = parse_plan(huge)
    assert len(p.plan) == 200_001 and p.plan[-1] == "DROP"
    nasty = "[" * 100_000 + "1. " * 100_000 + "#" * 100_000
    assert parse_plan(nasty).failed
    assert time.perf_counter() - start < 20  # generous: only guards against catastrophic backtracking
