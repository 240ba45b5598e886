"""``playbench compare A B`` where a side is a published folder: a BALROG submission (a leaderboard row, or one
``export --format balrog`` wrote), GRASP's published answers or a MANGO answer set, read through the suites'
declared formats. Pairs share a task and an instance key (BALROG: the episode file's seed and the record's;
GRASP: the instance id; MANGO: the question at its cutoff); environments and the overall row follow BALROG's
aggregation; the protocol differences are listed above the table, each marked."""

import json
import shutil
from pathlib import Path

import pytest

from helpers import only_run_dir, run_cli

LEADERBOARD = ("balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct",
               "balrog-leaderboard/VLM/20250425_naive_Gemini-2.5-Pro-Exp-03-25")
PLANS = Path(__file__).parents[1] / "data" / "grasp_table1_baseline_plans.json"


def _compare(*args: str) -> dict:
    done = run_cli("compare", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _refused(*args: str) -> str:
    done = run_cli("compare", *args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


def _eval(log: Path, *args: str) -> Path:
    done = run_cli("eval", *args, "--log-dir", str(log), "--quiet")
    assert done.returncode == 0, done.stderr
    return only_run_dir(log)


def _row(result: dict, setting: str) -> dict:
    return next(r for r in result["protocol"] if r["setting"] == setting)


# -- BALROG --------------------------------------------------------------------------------------------------


def test_two_leaderboard_rows(shared_data: Path) -> None:
    llm, vlm = (shared_data / row for row in LEADERBOARD)
    published = {name: json.loads((row / "summary.json").read_text()) for name, row in (("a", llm), ("b", vlm))}
    out = _compare(str(llm), str(vlm))
    assert out["key"] == "seed" and out["a"]["kind"] == "BALROG submission"
    assert out["b"]["label"] == "gemini/gemini-2.5-pro-exp-03-25 + naive"
    # the two rows played their own seeds: no (task, seed) is shared, so every comparison is unpaired
    compared = {t: r for t, r in out["tasks"].items() if "only in" not in r.get("note", "")}
    assert len(compared) == 55 and all(not r["paired"] and r["n"] == 0 for r in compared.values())
    assert all("seeds" in r["note"] for r in compared.values())
    assert {t for t, r in out["tasks"].items() if r.get("note") == "only in A: not compared"} == {
        "balrog/textworld/coin_collector", "balrog/textworld/the_cooking_game", "balrog/textworld/treasure_hunter"}
    # each side's figure over the five environments both have: BALROG's mean of environment means
    envs = ["babaisai", "babyai", "crafter", "minihack", "nle"]
    overall = out["overall"]
    assert overall["paired"] is False and overall["environments"] == [f"balrog/{e}" for e in envs]
    for side in ("a", "b"):
        stated = published[side]["environments"]
        expected = sum(stated[e]["progression_percentage"] for e in envs) / 500
        assert overall[f"mean_{side}"] == pytest.approx(expected, abs=1e-12)
        for env in envs:
            assert out["environments"][f"balrog/{env}"][f"n_{side}"] == stated[env]["episodes_played"]
    assert overall["mean_b"] == pytest.approx(published["b"]["average_progress"] / 100, abs=1e-12)
    lo, hi = overall["ci95"]
    assert lo < overall["mean_diff"] < hi
    # the protocol the rows' agent and client blocks state
    assert (_row(out, "temperature")["a"], _row(out, "temperature")["b"]) == (0.0, 1.0)
    assert (_row(out, "max_tokens")["a"], _row(out, "max_tokens")["b"]) == (1024, 4096)
    assert (_row(out, "images")["a"], _row(out, "images")["b"]) == (0, 1)
    assert all(_row(out, s)["changes_meaning"] is True for s in ("temperature", "max_tokens", "images"))
    assert _row(out, "episodes")["changes_meaning"] is False and "255 in all" in _row(out, "episodes")["a"]
    assert _row(out, "date")["changes_meaning"] is False and _row(out, "date")["b"] == "2025-04-25"
    assert {r["setting"] for r in out["protocol"]} == {"temperature", "max_tokens", "images", "episodes", "date"}
    text = run_cli("compare", str(llm), str(vlm), env={"COLUMNS": "100"}).stdout
    assert text.index("protocol differences") < text.index("(B) −") and "changes what the numbers mean" in text


def test_a_leaderboard_row_pairs_with_itself(shared_data: Path) -> None:
    row = shared_data / LEADERBOARD[0]
    out = _compare(str(row), str(row))
    assert out["overall"]["paired"] and out["overall"]["n"] == 255 and out["overall"]["mean_diff"] == 0
    assert out["overall"]["mean_a"] == pytest.approx(
        json.loads((row / "summary.json").read_text())["average_progress"] / 100, abs=1e-12)
    assert out["protocol"] == []


def test_a_leaderboard_row_pairs_its_crafter_episodes_with_no_run(shared_data: Path, tmp_path: Path) -> None:
    """A run of a row's Crafter seeds is not the row's Crafter (BALROG drew the world otherwise); BabyAI's is."""
    row = shared_data / LEADERBOARD[0]
    seeds = {task: [json.loads((row / path).read_text())["seed"] for path in paths] for task, paths in (
        ("balrog/babyai/goto", [f"babyai/BabyAI-MixedTrainLocal-v0/goto/BabyAI-MixedTrainLocal-v0/goto_run_{k:02d}.json"
                                for k in range(3)]),
        ("balrog/crafter/default", [f"crafter/default/default_run_{k:02d}.json" for k in range(3)]))}
    instances = tmp_path / "instances.txt"
    instances.write_text("".join(f"{task} {seed}\n" for task, found in seeds.items() for seed in found))
    run = _eval(tmp_path / "runs", *seeds, "--instances", str(instances), "--model", "mock/demo", "--agent", "naive",
                "-T", "max_steps=5")
    out = _compare(str(row), str(run))
    goto, crafter = out["tasks"]["balrog/babyai/goto"], out["tasks"]["balrog/crafter/default"]
    assert goto["paired"] and goto["n"] == 3
    assert not crafter["paired"] and (crafter["n"], crafter["n_a"], crafter["n_b"]) == (0, 10, 3)
    assert out["overall"]["paired"] and out["overall"]["environments"] == ["balrog/babyai"]
    (note,) = out["a"]["notes"]
    assert note.startswith(f"85 boxoban/crafter/minihack/nle/textworld episodes of {row.name} are not paired")
    assert "per-process counter" in note and out["b"]["notes"] == []
    # the board says it too, below its tables, and pairs the row and the run over BabyAI alone
    done = run_cli("board", str(run), "--with", str(row), "-o", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "site" / "board.json").read_text())
    assert data["rows"][1]["notes"] == [note]
    assert [(p["a"], p["b"], p["overall"]["n"]) for p in data["pairs"]] == [(0, 1, 3)]
    page = (tmp_path / "site" / "index.html").read_text()
    assert "85 boxoban/crafter/minihack/nle/textworld episodes of" in page and "per-process counter" in page


@pytest.fixture(scope="module")
def balrog_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small model run of three BALROG environments and the folder ``export --format balrog`` writes of it."""
    tmp = tmp_path_factory.mktemp("balrog")
    run = _eval(tmp / "runs", "balrog/babyai/goto", "balrog/babaisai/goto_win", "balrog/crafter/default",
                "--model", "mock/demo", "-M", "temperature=0", "--agent", "naive", "-T", "max_steps=5",
                "--episodes", "3")
    folder = tmp / "submission"
    done = run_cli("export", str(run), "--format", "balrog", "-o", str(folder))
    assert done.returncode == 0, done.stderr
    return run, folder


def test_an_exported_folder_pairs_with_its_run(balrog_run: tuple[Path, Path]) -> None:
    run, folder = balrog_run
    for a, b in ((run, folder), (folder, run)):
        out = _compare(str(a), str(b))
        for task in ("balrog/babyai/goto", "balrog/babaisai/goto_win", "balrog/crafter/default"):
            r = out["tasks"][task]
            assert r["paired"] and r["n"] == 3 and r["mean_diff"] == 0 and r["p_value"] == 1.0
        assert sorted(out["environments"]) == ["balrog/babaisai", "balrog/babyai", "balrog/crafter"]
        overall = out["overall"]
        assert overall["paired"] and overall["n"] == 9 and overall["groups"] == 3
        assert overall["mean_diff"] == 0 and overall["ci95"] == [0.0, 0.0] and overall["p_value"] == 1.0
        # the folder states what the run was given: only the date, which the folder does not state, is left
        assert [(r["setting"], r["changes_meaning"]) for r in out["protocol"]] == [("date", None)]
        assert out["a"]["notes"] == out["b"]["notes"] == []  # its summary.json marks every file playbench-seeded


def _unmark(folder: Path, keep: list[str] | None = None) -> None:
    """The export's summary.json without playbench's mark (a folder BALROG's evaluator made), or naming ``keep``."""
    summary = json.loads((folder / "summary.json").read_text())
    summary.pop("playbench", None)
    if keep is not None:
        summary["playbench"] = {"version": "0", "seeded": True, "episodes": keep}
    (folder / "summary.json").write_text(json.dumps(summary))


def test_a_seed_balrog_did_not_play_by_pairs_only_with_its_own_folder(balrog_run: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    run, folder = balrog_run
    mark = json.loads((folder / "summary.json").read_text())["playbench"]
    assert mark["seeded"] is True and len(mark["episodes"]) == 9
    balrogs = tmp_path / "balrogs"  # the same files, as BALROG's evaluator writes them: no mark
    shutil.copytree(folder, balrogs)
    _unmark(balrogs)
    out = _compare(str(run), str(balrogs))
    crafter = out["tasks"]["balrog/crafter/default"]
    assert not crafter["paired"] and (crafter["n"], crafter["n_a"], crafter["n_b"]) == (0, 3, 3)
    assert all(out["tasks"][t]["paired"] and out["tasks"][t]["n"] == 3
               for t in ("balrog/babyai/goto", "balrog/babaisai/goto_win"))
    assert out["overall"]["paired"] and out["overall"]["n"] == 6
    (note,) = out["b"]["notes"]
    assert note.startswith("3 crafter episodes of balrogs are not paired") and "crafter.Env(seed=None)" in note
    assert out["a"]["notes"] == []
    text = run_cli("compare", str(run), str(balrogs), env={"COLUMNS": "200"}).stdout
    assert "3 crafter episodes of balrogs are not paired" in text
    # the folder beside itself: every episode pairs with its own
    same = _compare(str(balrogs), str(balrogs))
    assert same["overall"]["n"] == 9 and same["tasks"]["balrog/crafter/default"]["n"] == 3
    # a mark names the files playbench wrote: one added afterwards is BALROG's
    crafter_files = sorted(f for f in mark["episodes"] if f.startswith("crafter/"))
    _unmark(balrogs, [f for f in mark["episodes"] if f != crafter_files[0]])
    mixed = _compare(str(run), str(balrogs))["tasks"]["balrog/crafter/default"]
    assert mixed["paired"] and mixed["n"] == 2
    # a mark that is not one an export writes is refused in one line
    summary = json.loads((balrogs / "summary.json").read_text())
    (balrogs / "summary.json").write_text(json.dumps({**summary, "playbench": {"seeded": True, "episodes": "all"}}))
    assert "not the mark 'export --format balrog' writes" in _refused(str(run), str(balrogs))


def test_other_seeds_do_not_pair_and_a_doubled_seed_is_refused(balrog_run: tuple[Path, Path],
                                                               tmp_path: Path) -> None:
    run, folder = balrog_run
    other = _eval(tmp_path / "runs", "balrog/babyai/goto", "--model", "mock/demo", "-M", "temperature=0.5",
                  "--agent", "naive", "-T", "max_steps=5", "--episodes", "3", "--seed", "7")
    out = _compare(str(folder), str(other))
    assert out["tasks"]["balrog/babyai/goto"]["paired"] is False and out["overall"]["paired"] is False
    temperature = _row(out, "temperature")
    assert (temperature["a"], temperature["b"], temperature["changes_meaning"]) == ("0", "0.5", True)
    doubled = tmp_path / "doubled"
    shutil.copytree(folder, doubled)
    episodes = doubled / "babyai" / "BabyAI-MixedTrainLocal-v0" / "goto" / "BabyAI-MixedTrainLocal-v0"
    shutil.copy(episodes / "goto_run_00.json", episodes / "goto_run_07.json")
    assert "cannot tell which one pairs" in _refused(str(run), str(doubled))
    assert "-S data" in _refused(str(run), str(folder), "-S", "data=x")


# -- GRASP ---------------------------------------------------------------------------------------------------


def _published_baselines(folder: Path) -> None:
    """GRASP's published baseline answers (indices 0-9), rebuilt from the facts in the original's line format."""
    facts = json.loads(PLANS.read_text())
    word = {letter: action for action, letter in facts["code"].items()}
    for baseline, files in facts["plans"].items():
        for name, rows in files.items():
            path = folder / f"{baseline}_results" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(json.dumps({"baseline": baseline, "index": index, "answer": [word[c] for c in plan],
                                                "movement_prompt": movement, "energy_limit_prompt": limit,
                                                "cost_of_step_prompt": cost}) + "\n"
                                    for index, movement, limit, cost, plan in rows))


def test_grasp_published_answers_pair_by_instance(shared_data: Path, tmp_path: Path) -> None:
    grids = shared_data / "grasp"
    one_setting = ("-T", f"data={grids}", "-T", "indices=0", "-T", "distribution=random", "-T", "obstacle=block",
                   "-T", "start=inner", "-T", "compat=true")
    run = _eval(tmp_path / "runs", "grasp/energy", "--agent", "greedy", *one_setting)
    results = tmp_path / "results"
    _published_baselines(results)
    out = _compare(str(run), str(results / "greedy_results"), "-S", f"data={grids}", "-S", "scoring=compat")
    assert out["key"] == "instance id (custom_id)"
    energy = out["tasks"]["grasp/energy"]
    assert energy["paired"] and energy["n"] == 8  # the 8 constraint combinations of grid 0 of that file
    assert not [r for r in out["protocol"] if r["changes_meaning"]]  # same agent, planner and scoring rule
    # scored with playbench's default rule instead: said, and marked as changing what the numbers mean
    fixed = _compare(str(run), str(results / "greedy_results"), "-S", f"data={grids}")
    scoring = _row(fixed, "-T scoring")
    assert (scoring["a"], scoring["b"], scoring["tasks"], scoring["changes_meaning"]) == (
        "compat", "fixed", ["grasp/energy"], True)
    # a model's output file holding the run's own answers scores as the run does: every difference is 0
    from playbench.log import read_run

    log = read_run(run)
    lines = [json.dumps({"custom_id": r.instance["custom_id"], "response": log.read_trajectory(r)[0].raw_output})
             for r in log.episodes()]
    (results / "gpt_o1_mini_output.jsonl").write_text("\n".join(lines) + "\n")
    same = _compare(str(run), str(results / "gpt_o1_mini_output.jsonl"), "-S", f"data={grids}",
                    "-S", "scoring=compat")
    assert same["b"]["label"] == "o1-mini" and same["tasks"]["grasp/energy"]["n"] == 8
    assert same["overall"]["mean_diff"] == 0 and same["overall"]["p_value"] == 1.0
    # what cannot pair is refused in one line: generated grids, answers of two agents, no grids to score on
    generated = _eval(tmp_path / "generated", "grasp/energy", "--agent", "greedy", "--episodes", "2")
    assert "generated grid" in _refused(str(generated), str(results / "greedy_results"), "-S", f"data={grids}")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copy(results / "greedy_results" / "inner_random_block.jsonl", mixed / "a.jsonl")
    shutil.copy(results / "random_results" / "inner_random_block.jsonl", mixed / "b.jsonl")
    assert "2 agents" in _refused(str(run), str(mixed), "-S", f"data={grids}")
    assert "-S data=DIR" in _refused(str(run), str(results / "greedy_results"))


# -- MANGO ---------------------------------------------------------------------------------------------------


def test_mango_answers_pair_by_question(shared_data: Path, tmp_path: Path) -> None:
    data = shared_data / "mango"
    run = _eval(tmp_path / "runs", "mango/df", "--agent", "oracle", "-T", f"data={data}", "-T", "games=905",
                "--episodes", "6")
    from playbench.log import read_run

    log = read_run(run)
    answers = tmp_path / "gpt-x_desti_finding_t1" / "905"
    answers.mkdir(parents=True)
    for record in log.episodes():  # the run's own answer on odd episodes, an empty list (a parse error) on even
        answer = log.read_trajectory(record)[0].raw_output if record.index % 2 else "[]"
        question = record.instance["id"]
        (answers / f"result_sample_id_{question}.json").write_text(json.dumps(
            {"sample_id": question, "game_name": "905", "task": "desti_finding",
             "model_cutoff_num": record.metrics["cutoff"], "response": answer}))
    out = _compare(str(run), str(answers.parent), "-S", f"data={data}")
    df = out["tasks"]["mango/df"]
    assert out["b"]["label"] == "gpt-x" and df["paired"] and df["n"] == 6
    assert (df["mean_a"], df["mean_b"], df["mean_diff"]) == (1.0, 0.5, -0.5)
    # the same questions from a procedural maze cannot be these: refused in one line
    procedural = _eval(tmp_path / "procedural", "mango/df", "--agent", "oracle", "--episodes", "2")
    assert "procedural maze" in _refused(str(procedural), str(answers.parent), "-S", f"data={data}")
    assert "-S mode=loose" in _refused(str(run), str(answers.parent), "-S", f"data={data}", "-S", "mode=loose")
