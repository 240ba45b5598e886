"""Typed task/agent parameters given as ``key=value`` strings on the command line.

A parameter class is declared in plain Python: a :class:`Params` subclass whose annotated class attributes
are the parameters, with their defaults (``Field(default, ge=1)`` for a bound; :func:`field_validator` and
:func:`model_validator` for checks). Reading a declaration (:func:`parameters`, :func:`declared_defaults`:
``playbench list``) imports no pydantic. The pydantic model that validates values is built from the
declaration on first use (:func:`model_of`): it subclasses the declaration, and every instance is one of
its, so ``SomeParams(compat=True)`` is validated and frozen, has ``model_dump``, and is a ``SomeParams``.
"""

import functools
import sys
import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Literal,
    Self,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from playbench.core.errors import PlaybenchError

if TYPE_CHECKING:
    from pydantic import BaseModel


class PlaybenchDeprecation(UserWarning):
    """A deprecated parameter name was used (it still works; the CLI prints the message as one line)."""


class _Required:
    """The default of a parameter that must be given."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class FieldSpec:
    """What ``Field(...)`` declares: the default and pydantic ``Field`` options (``ge=1``, ``exclude=True`` ...)."""

    default: Any
    options: Mapping[str, Any] = field(default_factory=dict)


def Field(default: Any = REQUIRED, **options: Any) -> Any:  # named as pydantic's, which it stands for
    """A parameter's default with pydantic ``Field`` options, applied when the model is built."""
    return FieldSpec(default, options)


@dataclass(frozen=True)
class _Check:
    """A validator marked by :func:`field_validator` or :func:`model_validator`, applied when the model is built."""

    function: Any
    mode: str
    fields: tuple[str, ...] = ()

    def pydantic(self) -> Any:
        """The same validator as pydantic's decorator makes it."""
        import pydantic

        if self.fields:
            return pydantic.field_validator(*self.fields, mode=self.mode)(self.function)  # type: ignore[call-overload]
        return pydantic.model_validator(mode=self.mode)(self.function)  # type: ignore[call-overload]


F = TypeVar("F")


def field_validator(*fields: str, mode: Literal["before", "after", "plain", "wrap"] = "after") -> Callable[[F], F]:
    """Check (or convert) the named parameters, as pydantic's ``field_validator`` (applied to the built model)."""
    def mark(function: F) -> F:
        return cast(F, _Check(function, mode, fields))
    return mark


def model_validator(*, mode: Literal["before", "after", "wrap"]) -> Callable[[F], F]:
    """Check (or convert) the parameters together, as pydantic's ``model_validator`` (applied to the built model)."""
    def mark(function: F) -> F:
        return cast(F, _Check(function, mode))
    return mark


def _must_exist(value: str) -> str:
    if not Path(value).expanduser().exists():
        raise ValueError(f"no such file or folder: {value}")
    return value


class _MustExist:
    """``Annotated`` metadata that pydantic reads: the string must name an existing file or folder."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], Any]) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(_must_exist, handler(source))


#: A parameter naming a file or folder that must exist (official data, level files ...).
ExistingPath = Annotated[str, _MustExist()]


class _ModelFields:
    """``SomeParams.model_fields``: pydantic's fields, from the model (built now if it was not yet)."""

    def __get__(self, obj: object, owner: type["Params"]) -> dict[str, Any]:
        return cast(dict[str, Any], model_of(owner).model_fields)


class Params:
    """Base of parameter declarations: unknown keys are errors, values are validated and frozen.

    ``renamed`` maps old parameter names to current ones: the old name is still accepted (run records
    written before the rename hold it) with a :class:`PlaybenchDeprecation` warning, and is stored under
    the new name. ``compat_values`` are the suite knobs that ``compat=true`` sets to the original's
    values, unless given explicitly (an explicit value wins). A ``model_config`` dict adds to pydantic's
    configuration (``extra="allow"``).
    """

    renamed: ClassVar[dict[str, str]] = {}
    compat_values: ClassVar[dict[str, Any]] = {}
    model_fields = _ModelFields()

    def __new__(cls, /, **values: Any) -> Self:
        """An instance of the built model: Python then runs its ``__init__`` (pydantic's validation) on ``values``."""
        return cast(Self, object.__new__(model_of(cls)))

    @classmethod
    def model_validate(cls, obj: Any) -> Self:
        """Validated parameters from a mapping (pydantic's ``model_validate`` on the built model)."""
        return cast(Self, model_of(cls).model_validate(obj))

    if TYPE_CHECKING:  # answered by pydantic's BaseModel, which every instance is (see model_of)
        model_extra: dict[str, Any] | None

        def model_dump(self, *, mode: str = "python", include: Any = None, exclude: Any = None,
                       exclude_none: bool = False) -> dict[str, Any]:
            """The values as a dict."""

        def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
            """A copy with some values replaced."""


class NoParams(Params):
    """A task or agent without parameters."""


@dataclass(frozen=True)
class Parameter:
    """One declared parameter, read from its declaration without pydantic."""

    name: str
    annotation: Any
    default: Any  # REQUIRED when it must be given
    description: str | None = None

    @property
    def type_name(self) -> str:
        """A short readable name of its type: ``int | None``, ``fixed|compat``, ``path``."""
        return _type_name(self.annotation)


def _parameter(model: type[Params], name: str, annotation: Any) -> Parameter:
    value = getattr(model, name, REQUIRED)
    if isinstance(value, FieldSpec):
        return Parameter(name, annotation, value.default, value.options.get("description"))
    fields = sys.modules.get("pydantic.fields")  # a declaration may use pydantic's own Field: it is loaded then
    if fields is not None and isinstance(value, fields.FieldInfo):
        default = value.get_default(call_default_factory=True)
        return Parameter(name, annotation, REQUIRED if default is fields.PydanticUndefined else default,
                         value.description)
    return Parameter(name, annotation, value)


_PARAMETERS: dict[type, tuple[Parameter, ...]] = {}


def parameters(model: type[Params]) -> tuple[Parameter, ...]:
    """The parameters a declaration declares (its bases' first), with their types and defaults."""
    found = _PARAMETERS.get(model)
    if found is None:
        hints = get_type_hints(model, include_extras=True)
        found = _PARAMETERS[model] = tuple(_parameter(model, name, hint) for name, hint in hints.items()
                                           if not name.startswith("_") and get_origin(hint) is not ClassVar)
    return found


def declared_defaults(model: type[Params]) -> Params:
    """The declared defaults as an instance of the declaration, NOT validated.

    For reading what the defaults give (``playbench list``'s episode counts) without pydantic. A parameter
    without a default is left unset.
    """
    out = object.__new__(model)
    out.__dict__.update({p.name: p.default for p in parameters(model) if p.default is not REQUIRED})
    return out


_MODELS: dict[type, type["BaseModel"]] = {}  # declaration -> its model; a model -> itself
_DECLARATIONS: dict[type, type[Params]] = {}  # model -> its declaration
_BUILDING = threading.Lock()


def model_of(model: type[Params]) -> type["BaseModel"]:
    """The pydantic model of a declaration, built on first use (a model is its own)."""
    built = _MODELS.get(model)
    if built is None:
        with _BUILDING:
            built = _MODELS.get(model)
            if built is None:
                built = _build(model)
                _MODELS[model] = _MODELS[built] = built
                _DECLARATIONS[built] = model
    return built


def _rebuilt(declaration: type[Params], state: dict[str, Any]) -> Params:
    """Unpickle: an instance of the declaration's model (the model is not importable by name; the declaration is)."""
    out = object.__new__(model_of(declaration))
    out.__setstate__(state)
    return cast(Params, out)


@functools.cache
def _bool_adapter() -> Any:
    """Pydantic's own bool parsing, built on first use (building it costs 50 ms)."""
    from pydantic import TypeAdapter

    return TypeAdapter(bool)


def _is_true(value: Any) -> bool:
    """Whether a raw ``compat`` value means true (a bad value is left for validation to report)."""
    from pydantic import ValidationError

    try:
        return value is not None and bool(_bool_adapter().validate_python(value))
    except ValidationError:
        return False


@functools.cache
def _model_base() -> type["BaseModel"]:
    """The base of every built model: the configuration and the renamed/compat rule of :class:`Params`."""
    from pydantic import BaseModel, ConfigDict
    from pydantic import model_validator as pydantic_model_validator

    class ParamsModel(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)

        @pydantic_model_validator(mode="before")
        @classmethod
        def _old_names_and_compat(cls, data: Any) -> Any:
            renamed: dict[str, str] = getattr(cls, "renamed", {})
            compat_values: dict[str, Any] = getattr(cls, "compat_values", {})
            if not isinstance(data, dict) or not (renamed or compat_values):
                return data
            data = rename_deprecated(renamed, data)
            if compat_values and _is_true(data.get("compat")):
                data = {**compat_values, **data}
            return data

        def __reduce__(self) -> tuple[Any, ...]:
            return _rebuilt, (_DECLARATIONS[type(self)], self.__getstate__())

    return ParamsModel


def _pydantic_default(value: Any) -> Any:
    import pydantic

    if isinstance(value, FieldSpec):
        return pydantic.Field(**value.options) if value.default is REQUIRED else pydantic.Field(value.default,
                                                                                                 **value.options)
    return value


def _build(declaration: type[Params]) -> type["BaseModel"]:
    """The pydantic model of a declaration.

    Its fields, validators and configuration are the declaration's (its bases' included), and the declaration is
    its base (for the declaration's methods and for ``isinstance``).
    """
    from pydantic._internal._decorators import PydanticDescriptorProxy

    declared = parameters(declaration)
    namespace: dict[str, Any] = {"__module__": declaration.__module__, "__qualname__": declaration.__qualname__,
                                 "__doc__": declaration.__doc__,
                                 "__annotations__": {p.name: p.annotation for p in declared}}
    config: dict[str, Any] = {}
    for cls in reversed(declaration.__mro__):  # the bases first, so a subclass's validator of one name wins
        config.update(cls.__dict__.get("model_config", {}))
        for name, value in vars(cls).items():
            if isinstance(value, _Check):
                namespace[name] = value.pydantic()
            elif isinstance(value, PydanticDescriptorProxy):  # a declaration may use pydantic's own decorators
                namespace[name] = value
    for p in declared:
        namespace[p.name] = _pydantic_default(getattr(declaration, p.name, REQUIRED))
    if config:
        namespace["model_config"] = config
    with warnings.catch_warnings():  # each field "shadows" the declaration's default of the same name: intended
        warnings.filterwarnings("ignore", "Field name .* shadows an attribute in parent", UserWarning)
        return cast(type["BaseModel"], type(declaration.__name__, (_model_base(), declaration), namespace))


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
    if ann == ExistingPath:
        return "path"
    args = get_args(ann)
    origin = get_origin(ann)
    if origin is Literal:
        return "|".join(str(a) for a in args)
    if origin in (Union, UnionType):
        return " | ".join(_type_name(a) for a in args)
    if origin is Annotated:
        return _type_name(args[0])
    if ann is type(None):
        return "None"
    return getattr(ann, "__name__", str(ann))


def valid_keys(model: type[Params]) -> str:
    """A compact ``key (type)`` listing of a declaration's parameters."""
    return ", ".join(f"{p.name} ({p.type_name})" for p in parameters(model)) or "none"


def declares(model: type[Params], key: str) -> bool:
    """Whether ``model`` takes parameter ``key`` (a current name, or an old one it still accepts)."""
    return key in model.renamed or any(p.name == key for p in parameters(model))


def build_params(model: type[Params], values: dict[str, Any], owner: str) -> Params:
    """Validate ``values`` against ``model``; any problem becomes a one-line PlaybenchError."""
    from pydantic import ValidationError

    types = {p.name: p.type_name for p in parameters(model)}
    unknown = [k for k in values if not declares(model, k)]
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
            expected = types.get(key, "")
            msg, hint = err["msg"], f" (expected {expected})" if expected else ""
        raise PlaybenchError(f"bad value {given!r} for parameter {key!r} of {owner}: {msg}{hint}") from None
