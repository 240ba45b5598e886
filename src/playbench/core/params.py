"""Typed task/agent parameters given as ``key=value`` strings on the command line."""

import warnings
from functools import cache
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, TypeAdapter, ValidationError, model_validator

from playbench.core.errors import PlaybenchError


class PlaybenchDeprecation(UserWarning):
    """A deprecated parameter name was used (it still works; the CLI prints the message as one line)."""


@cache
def _bool_adapter() -> TypeAdapter[bool]:
    """Pydantic's own bool parsing, built on first use (building it costs 50 ms, a third of ``list``)."""
    return TypeAdapter(bool)


class Params(BaseModel):
    """Base for parameter models: unknown keys are errors, values are validated and frozen.

    ``renamed`` maps old parameter names to current ones: the old name is still accepted (run records
    written before the rename hold it) with a :class:`PlaybenchDeprecation` warning, and is stored under
    the new name. ``compat_values`` are the suite knobs that ``compat=true`` sets to the original's
    values, unless given explicitly (an explicit value wins).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # schemas built on first use: listing tasks builds none
    renamed: ClassVar[dict[str, str]] = {}
    compat_values: ClassVar[dict[str, Any]] = {}

    @model_validator(mode="before")
    @classmethod
    def _old_names_and_compat(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not (cls.renamed or cls.compat_values):
            return data
        data = rename_deprecated(cls.renamed, data)
        if cls.compat_values and _is_true(data.get("compat")):
            data = {**cls.compat_values, **data}
        return data


def _is_true(value: Any) -> bool:
    """Whether a raw ``compat`` value means true (a bad value is left for validation to report)."""
    try:
        return value is not None and _bool_adapter().validate_python(value)
    except ValidationError:
        return False


def rename_deprecated(renamed: dict[str, str], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with old parameter names replaced by the current ones (warning when a value is given).

    An old and a new name given with different values is a PlaybenchError.
    """
    out = dict(data)
    for old, new in renamed.items():
        if old not in out:
            continue
        value = out.pop(old)
        if new in out and out[new] != value and value is not None:
            raise PlaybenchError(f"parameters {old!r} and {new!r} are the same setting; give {new!r} only")
        if value is not None:
            warnings.warn(f"parameter {old!r} is deprecated: it is now called {new!r}", PlaybenchDeprecation,
                          stacklevel=2)
        out.setdefault(new, value)
    return out


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
    unknown = [k for k in values if k not in model.model_fields and k not in model.renamed]
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
