"""A run's settings are one declaration (``RunSettings``): every face derives its options from it, runs
recorded before it still read and resume, and a setting a run refuses is never written."""

import dataclasses
import json
import shutil
import typing
from pathlib import Path

import pytest

import playbench
from playbench.api.evaluate import EvalOptions
from playbench.cli.eval_cmd import command
from playbench.core.errors import PlaybenchError
from playbench.core.records import RUN_OPTIONS, Resume, RunSettings
from playbench.log import read_run
from playbench.models.model import ModelSettings

OLD_RUN = Path(__file__).resolve().parents[1] / "data" / "runs" / "v1-hanoi-mock"
TASK = "smartplay/hanoi-3"


def test_every_setting_has_a_flag_a_keyword_and_a_resume_rule() -> None:
    """Adding a setting is adding a field: the command, the library and the resume rules take it from there."""
    flags = {param.name: param for param in command.params}
    keywords = typing.get_type_hints(EvalOptions)
    for name, field in RunSettings.model_fields.items():
        option = RUN_OPTIONS[name]
        assert flags[name].opts == [option.flag], name  # one name: the flag's and the library's
        assert flags[name].default == field.default and flags[name].help, name
        assert keywords[name] == field.annotation, name
        assert option.resume in typing.get_args(Resume), name
    assert len(RUN_OPTIONS) == len(RunSettings.model_fields) >= 14


def test_the_model_takes_the_connection_settings_by_their_run_names() -> None:
    run = RunSettings(max_connections=3, max_retries=1, timeout=9.5, retry_backoff=0.25, max_connect_failures=2,
                      base_url="http://127.0.0.1:9/v1", cache=True)
    taken = {f.name for f in dataclasses.fields(ModelSettings)} - {"backoff_cap"}
    assert taken <= RunSettings.model_fields.keys()
    model = ModelSettings.of(run)
    assert all(getattr(model, name) == getattr(run, name) for name in taken)
    assert all(getattr(ModelSettings(), name) == RunSettings.model_fields[name].default for name in taken)


def test_a_new_run_records_its_settings_on_to_those_set(tmp_path: Path) -> None:
    result = playbench.eval(TASK, agent="random", episodes=1, log_dir=tmp_path, label="mine", max_connections=3)
    settings = json.loads((result.path / "run.json").read_text())["settings"]
    assert list(settings) == [name for name, option in RUN_OPTIONS.items() if not option.only_when_set]
    assert settings["label"] == "mine" and settings["max_connections"] == 3 and settings["timeout"] == 120.0
    assert read_run(result.path).meta.settings.batch is False


def test_a_run_recorded_before_reads_and_resumes(tmp_path: Path) -> None:
    """The v1 run's settings hold neither executor, batch, shard nor label: their defaults stand in."""
    run = tmp_path / "old"
    shutil.copytree(OLD_RUN, run)
    meta = json.loads((run / "run.json").read_text())
    assert not {"executor", "batch", "batch_timeout", "shard", "label"} & meta["settings"].keys()
    settings = read_run(run).meta.settings
    assert settings.executor == "local" and settings.batch is False and settings.max_connections == 8
    assert settings.base_url == "mock:"

    result = playbench.eval(resume=run, max_connections=2, label="old run")
    after = json.loads((run / "run.json").read_text())
    assert result.complete and after["config"] == meta["config"]
    assert after["resumes"][-1]["changed"] == {"max_connections": [8, 2], "label": [None, "old run"]}
    assert after["settings"]["max_connections"] == 2 and "batch" not in after["settings"]


def test_a_recorded_batch_reads_as_on(tmp_path: Path) -> None:
    run = tmp_path / "batched"
    shutil.copytree(OLD_RUN, run)
    meta = json.loads((run / "run.json").read_text())
    meta["settings"].update(batch=True, batch_timeout=60)
    (run / "run.json").write_text(json.dumps(meta))
    settings = read_run(run).meta.settings
    assert settings.batch is True and settings.batch_timeout == 60.0


def test_a_setting_refused_on_resume_is_not_written(tmp_path: Path) -> None:
    run = tmp_path / "old"
    shutil.copytree(OLD_RUN, run)
    before = (run / "run.json").read_bytes()
    for bad, message in (({"max_connections": 0}, "--max-connections must be at least 1"),
                         ({"executor": "bogus"}, "--executor must be one of local, ray"),
                         ({"batch_timeout": 5.0}, "--batch-timeout goes with --batch"),
                         ({"ray_address": "127.0.0.1:1"}, "--ray-address goes with --executor ray")):
        with pytest.raises(PlaybenchError, match=message):
            playbench.eval(resume=run, **bad)
        assert (run / "run.json").read_bytes() == before, bad


def test_identity_settings_are_refused_on_resume_with_their_values(tmp_path: Path) -> None:
    run = tmp_path / "old"
    shutil.copytree(OLD_RUN, run)
    with pytest.raises(PlaybenchError) as refused:
        playbench.eval(resume=run, cache=True)
    assert str(refused.value) == ("--cache would change the results of a resumed run: recorded False, given True; "
                                  "resume with --resume alone (or start a new run)")
    with pytest.raises(PlaybenchError, match=r"--shard would change .* recorded None, given '1/2'"):
        playbench.eval(resume=run, shard=" 1 / 2 ")
    playbench.eval(resume=run, cache=False, seed=5)  # the recorded values: accepted


@pytest.mark.parametrize(("given", "message"), [
    ({"max_connections": "8"}, "--max-connections: input should be a valid integer, got '8'"),
    ({"batch": "yes"}, "--batch: input should be a valid boolean, got 'yes'"),
    ({"timeout": float("inf")}, "--timeout: input should be a finite number, got inf"),
    ({"timeout": 0}, "--timeout must be more than 0, got 0.0"),
    ({"max_retries": -1}, "--max-retries must be at least 0, got -1"),
])
def test_a_setting_of_the_wrong_type_is_one_line_and_nothing_is_made(tmp_path: Path, given: dict,
                                                                      message: str) -> None:
    with pytest.raises(PlaybenchError) as refused:
        playbench.eval(TASK, agent="random", episodes=1, log_dir=tmp_path, **given)
    assert str(refused.value) == message
    assert not list(tmp_path.iterdir())
