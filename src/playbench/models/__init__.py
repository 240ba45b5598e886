"""Models: ``provider/name`` chat clients with one retry layer, limits, usage, cost and a cache.

``create_model("openai/gpt-4o", {"temperature": "0"}, ModelSettings(...))`` gives a :class:`Model`
whose ``generate(messages)`` returns a :class:`ModelOutput` or raises ``InfraError``.

The names below are imported on first use: agents import ``playbench.models.types`` (and so this
package) even when no model is used, and the HTTP client (aiohttp) should load only for a model.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playbench.models.factory import create_model, parse_model_name
    from playbench.models.model import Model, ModelSettings, ModelStats
    from playbench.models.providers_table import PROVIDERS
    from playbench.models.types import GenerateConfig, Image, Message, ModelOutput, messages_record

_LAZY = {
    "PROVIDERS": "providers_table", "create_model": "factory", "parse_model_name": "factory", "Model": "model",
    "ModelSettings": "model", "ModelStats": "model", "GenerateConfig": "types", "Image": "types",
    "Message": "types", "ModelOutput": "types", "messages_record": "types",
}

__all__ = [
    "PROVIDERS", "GenerateConfig", "Image", "Message", "Model", "ModelOutput", "ModelSettings", "ModelStats",
    "create_model", "messages_record", "parse_model_name",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'playbench.models' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"playbench.models.{_LAZY[name]}"), name)
    globals()[name] = value
    return value
