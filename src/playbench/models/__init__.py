"""Models: ``provider/name`` chat clients with one retry layer, limits, usage, cost and a cache.

``create_model("openai/gpt-4o", {"temperature": "0"}, ModelSettings(...))`` gives a :class:`Model`
whose ``generate(messages)`` returns a :class:`ModelOutput` or raises ``InfraError``.
"""

from playbench.models.factory import PROVIDERS, create_model, parse_model_name
from playbench.models.model import Model, ModelSettings, ModelStats
from playbench.models.types import GenerateConfig, Image, Message, ModelOutput, messages_record

__all__ = [
    "PROVIDERS", "GenerateConfig", "Image", "Message", "Model", "ModelOutput", "ModelSettings", "ModelStats",
    "create_model", "messages_record", "parse_model_name",
]
