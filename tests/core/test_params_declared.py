"""Parameter declarations are plain Python: ``playbench list`` reads them without pydantic, and what it reads is
what validation gives; the instances are the pydantic model's, built from the declaration on first use."""

import copy
import pickle

import pydantic
import pytest
from pydantic_core import PydanticUndefined

from playbench.agents.registry import list_agents
from playbench.core.errors import PlaybenchError
from playbench.core.params import REQUIRED, Params, build_params, declared_defaults, parameters
from playbench.core.registry import list_tasks
from playbench.models.types import GenerateConfig
from playbench.suites.balrog.params import BalrogParams, TextWorldParams
from playbench.suites.grasp.params import GraspParams


def _declarations() -> set[type[Params]]:
    return {t.params_model for t in list_tasks()} | {a.declaration() for a in list_agents()} | {GenerateConfig}


@pytest.mark.parametrize("model", sorted(_declarations(), key=lambda m: m.__qualname__), ids=lambda m: m.__qualname__)
def test_the_declared_parameters_are_the_models(model: type[Params]) -> None:
    fields = model.model_fields
    assert [p.name for p in parameters(model)] == list(fields)
    for p in parameters(model):
        default = fields[p.name].get_default(call_default_factory=True)
        assert p.default == (REQUIRED if default is PydanticUndefined else default), p.name


def test_the_listed_defaults_and_episode_counts_are_the_validated_ones() -> None:
    for task in list_tasks():
        validated, declared = task.params(), declared_defaults(task.params_model)
        for p in parameters(task.params_model):
            assert getattr(declared, p.name) == getattr(validated, p.name), (task.id, p.name)
        try:
            episodes = task.episodes(validated)
        except Exception:  # needs its data: listing shows "?" then
            continue
        assert task.episodes(declared) == episodes, task.id


def test_an_instance_is_the_declarations_validated_frozen_and_pickled() -> None:
    params = GraspParams(distribution="spiral,cluster")
    assert isinstance(params, GraspParams) and params.choices("distribution") == ("cluster", "spiral")
    assert params == build_params(GraspParams, {"distribution": "spiral,cluster"}, "grasp/energy")
    assert pickle.loads(pickle.dumps(params)) == params == copy.deepcopy(params)
    assert hash(params) == hash(GraspParams(distribution="spiral,cluster"))
    with pytest.raises(pydantic.ValidationError):
        params.distribution = "all"  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="expected 'all' or a comma list"):
        GraspParams(distribution="nowhere")
    games = TextWorldParams(games="3")  # a subclass: its own validators and its base's fields
    assert isinstance(games, BalrogParams) and (games.games, games.preset) == (3, "config")
    with pytest.raises(PlaybenchError, match="BALROG publishes 25 games"):
        build_params(TextWorldParams, {"games": "30"}, "balrog/textworld/treasure_hunter")


class _PydanticStyle(Params):
    """Declared with pydantic's own Field and field_validator, as a suite outside playbench may be."""

    level: int = pydantic.Field(1, ge=1)
    name: str = "a"

    @pydantic.field_validator("name")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.lower()


def test_a_declaration_may_use_pydantics_own_field_and_validators() -> None:
    assert [(p.name, p.default) for p in parameters(_PydanticStyle)] == [("level", 1), ("name", "a")]
    assert build_params(_PydanticStyle, {"name": "BIG"}, "x").model_dump() == {"level": 1, "name": "big"}
    with pytest.raises(PlaybenchError, match="bad value '0' for parameter 'level' of x"):
        build_params(_PydanticStyle, {"level": "0"}, "x")
