"""``provider/name`` -> a configured Model (keys from the environment only)."""

import os
import re
from collections.abc import Callable, Mapping
from typing import Any, cast
from urllib.parse import urlsplit

from playbench.core.errors import PlaybenchError
from playbench.models.model import Model, ModelSettings
from playbench.models.providers.base import Provider, split_credentials
from playbench.models.providers.wires import WIRES
from playbench.models.providers_table import (
    GENERIC,
    PROVIDERS,
    ProviderRow,
    check_rows,
    generic_row,
    row_key_variables,
)
from playbench.models.redact import credential_setting, mask_url, redact, register_secret, url_secrets, watch_variable
from playbench.models.types import MOCK_KEYS, GenerateConfig, build_generate_config

#: the service name of ``openai-api/<service>/<model>``: it names environment variables
_SERVICE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def parse_model_name(name: str) -> tuple[str, str]:
    """``"openai/gpt-4o"`` -> ``("openai", "gpt-4o")``; anything else is a PlaybenchError.

    The generic form keeps its service: ``"openai-api/together/m"`` -> ``("openai-api", "together/m")``.
    """
    provider, sep, model = name.partition("/")
    if not sep or not model:
        raise PlaybenchError(f"--model expects provider/name (e.g. openai/gpt-4o or mock/demo), got {name!r}")
    if provider == GENERIC:
        service, sep, served = model.partition("/")
        if not sep or not served or not _SERVICE.fullmatch(service):
            raise PlaybenchError(f"--model {GENERIC}/SERVICE/NAME expects a service name of letters, digits, - and _ "
                                 f"and a model name (e.g. {GENERIC}/together/meta-llama/Llama-3-8b), got {name!r}")
    elif provider not in PROVIDERS:
        raise PlaybenchError(f"unknown model provider {provider!r}; known: {', '.join(PROVIDERS)}, "
                             f"or {GENERIC}/SERVICE for any OpenAI-compatible service")
    return provider, model


def provider_row(name: str) -> tuple[ProviderRow, str]:
    """The table row of model ``provider/name`` and the name its server knows the model by.

    The generic form's row is made from its service: ``openai-api/together/m`` -> ``$TOGETHER_…``, ``m``.
    """
    provider, model = parse_model_name(name)
    if provider == GENERIC:
        service, _, served = model.partition("/")
        return generic_row(service), served
    row = PROVIDERS[provider]
    check_rows({provider: row}, WIRES)  # a row patched in at run time is held to the table's check too
    return row, model


def create_model(name: str, params: Mapping[str, Any] | None = None, settings: ModelSettings | None = None) -> Model:
    """Build the Model for ``provider/name`` with ``-M`` settings ``params``."""
    settings = settings or ModelSettings()
    row, model = provider_row(name)
    refuse_credentials(name, params or {})
    config = build_generate_config(dict(params or {}), f"model {name}")
    live = WIRES[row.wire].live
    if live.uses_http and any(getattr(config, k) for k in MOCK_KEYS):
        raise PlaybenchError("-M script, invalid_rate and latency are settings of the mock provider only")
    if settings.max_connections < 1 or settings.max_retries < 0 or settings.timeout <= 0:
        raise PlaybenchError("--max-connections must be >= 1, --max-retries >= 0 and --timeout > 0")
    if settings.max_connect_failures < 1:
        raise PlaybenchError("--max-connect-failures must be >= 1")
    if live.uses_http:
        provider = _http_provider(name, live, row, model, settings)
    else:  # answered in this process (the mock): built from the model's name and settings, no server, no key
        provider = cast("Callable[[str, GenerateConfig], Provider]", live)(model, config)
    provider.check_config(config)
    return Model(name, provider, config, settings)


def _http_provider(name: str, cls: type[Provider], row: ProviderRow, model: str, settings: ModelSettings) -> Provider:
    """The provider of an HTTP model (``cls``, its row's wire format): URL checked, key from the environment."""
    default_url, url_var, key_vars, fallback_key = row.default_url, row.url_variable, row.key_variables, row.fallback_key
    for var in key_vars:  # a row added at run time, a generic service: its key is hidden as the table's are
        watch_variable(var)
    url = settings.base_url or (os.environ.get(url_var) if url_var else None) or default_url
    if url is None:
        raise PlaybenchError(f"{name} needs its server's URL in ${url_var} (or --base-url)")
    check_base_url(url)
    in_url = url_secrets(url)
    for secret in in_url:  # a key in the URL is hidden wherever a server echoes it
        register_secret(secret)
    key_var = next((v for v in key_vars if os.environ.get(v)), None)
    key = os.environ[key_var] if key_var else None
    register_secret(key)
    if key is None and settings.base_url is None and fallback_key is None and not in_url:
        raise PlaybenchError(f"{name} needs an API key in ${' or $'.join(key_vars)} (or --base-url for a local server)")
    source = f"${key_var or key_vars[0]}"
    if key is None and fallback_key is not None:
        if split_credentials(url)[1] is None:  # a placeholder key, not needed when the URL carries credentials
            key = fallback_key
        source = f"the placeholder key {fallback_key!r} (set ${key_vars[0]})"
    return cls(model, url, key, key_source=source)


def check_base_url(url: str) -> None:
    """Refuse a base URL that is not ``http(s)://host…`` (shown without its credentials)."""
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number)
    except ValueError:
        valid = False
    if not valid:
        raise PlaybenchError(f"the model's base URL must look like http(s)://host[:port]/path, got {redact(url)!r}")


def key_variables(model: str | None) -> str:
    """Where the key of ``model``'s provider comes from, in words (``$OPENAI_API_KEY``), for messages."""
    try:
        names = provider_row(model)[0].key_variables if model else ()
    except PlaybenchError:
        names = ()
    if not names:
        return "the provider's variable (" + ", ".join(f"${v}" for v in row_key_variables()) + ")"
    return " or ".join(f"${v}" for v in names)


def refuse_credentials(model: str | None, params: Mapping[str, Any]) -> None:
    """Refuse (PlaybenchError) ``-M`` settings that carry a key: a run records its ``-M`` settings."""
    found = credential_setting(params)
    if found is not None:
        raise PlaybenchError(f"{found} looks like a credential, and -M settings are recorded in run.json: keys come "
                             f"from the environment ({key_variables(model)}), never from -M")


def public_url(model: Model) -> str:
    """The server ``model`` sends requests to, as a run records it (credentials masked; ``mock:`` for the mock)."""
    provider = model.provider
    return mask_url(provider.base_url + (f"?{provider.query}" if provider.query else "")) or provider.base_url


def destination(model: Model) -> str:
    """One line saying where ``model``'s requests go and which credentials they carry (never the key)."""
    provider = model.provider
    if not provider.uses_http:
        return f"model {model.name}: answered in this process (no server, no key)"
    url = public_url(model)
    sent = provider.credentials()  # "$OPENAI_API_KEY", "the user:password of the base URL", "no credentials"
    if url_secrets(f"?{provider.query}"):
        sent = "the key in the URL" if sent == "no credentials" else f"{sent} and the key in the URL"
    return f"model {model.name}: requests go to {url} with {sent}"


def default_server(model: str) -> tuple[str | None, str | None] | None:
    """(the default base URL of ``model``'s provider or None, the variable naming another server).

    None for a provider answered in this process (the mock), which has no server.
    """
    row = provider_row(model)[0]
    if not WIRES[row.wire].live.uses_http:
        return None
    return row.default_url, row.url_variable
