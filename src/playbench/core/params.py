"""Typed task/agent parameters given as ``key=value`` strings on the command line."""

from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from playbench.core.errors import PlaybenchError


class Params(BaseModel):
    """Base for parameter models: unknown keys are errors, values are validated and frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _must_exist(value: str) -> str:
    if not Path(value).expanduser().exists():
        raise ValueError(f"no such file or folder: {value}")
    return value


#: A parameter naming a file or folder that must exist (official data, level files ...).
ExistingPath = Annotated[str, AfterValidator(_must_exist)]


class NoParams(Params):
    """A task or agent without parameters."""


def parse_key_values(items: list[str] | tuple[str, ...], flag: str = "-T") -> dict[str, str]:
    """Turn ``["a=1", "b=x"]`` into ``{"a": "1", "b": "x"}``; a malformed item is a PlaybenchError."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise PlaybenchError(f"{flag} expects key=value, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _type_name(ann: Any) -> str:
    """A short readable name for a parameter type: ``int | None``, ``fixed|compat``, ``path``."""
    if ann is ExistingPath:
        return "path"
    args = get_args(ann)
    origin = get_origin(ann)
    if origin is Literal:
        return "|".join(str(a) for a in args)
    if origin in (Union, UnionType):
        return " | ".join(_type_name(a) for a in args)
    if ann is type(None):
        return "None"
    return getattr(ann, "__name__", str(ann))


def _describe_field(model: type[BaseModel], name: str) -> str:
    return _type_name(model.model_fields[name].annotation)


def valid_keys(model: type[BaseModel]) -> str:
    """A compact ``key (type)`` listing of a parameter model's fields."""
    return ", ".join(f"{k} ({_describe_field(model, k)})" for k in model.model_fields) or "none"


def build_params(model: type[Params], values: dict[str, Any], owner: str) -> Params:
    """Validate ``values`` against ``model``; any problem becomes a one-line PlaybenchError."""
    unknown = [k for k in values if k not in model.model_fields]
    if unknown:
        raise PlaybenchError(f"unknown parameter {unknown[0]!r} for {owner}; valid keys: {valid_keys(model)}")
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "?"
        given = values.get(key, err.get("input"))
        if err["type"] == "value_error":  # our own validators already say what is wrong
            msg, hint = err["msg"].removeprefix("Value error, "), ""
        else:
            expected = _describe_field(model, key) if key in model.model_fields else ""
            msg, hint = err["msg"], f" (expected {expected})" if expected else ""
        raise PlaybenchError(f"bad value {given!r} for parameter {key!r} of {owner}: {msg}{hint}") from None
