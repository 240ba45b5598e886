"""The model providers: one row each, saying where a provider's server and key come from and its wire format.

A provider alias (an OpenAI-compatible service under a name of its own) is one more row: ``--model``,
the key scrubber (``redact``), ``-M`` refusals and the resume checks on recorded servers all read this
table. A service with no row is reached without code as ``openai-api/<service>/<model>``. A row's wire
format is a key of ``providers/wires.py``'s ``WIRES`` (the live provider class and its batch flow), checked
by :func:`check_rows` when that module loads.

This module imports nothing of playbench: ``redact``, loaded by everything that writes text, reads its key
variables here.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ProviderRow:
    """Where a provider's requests go unless told otherwise, which variables say so, and its wire format."""

    default_url: str | None  # None: no default, the URL variable (or --base-url) must name the server
    url_variable: str | None  # the variable naming another server (None: the provider has no server)
    key_variables: tuple[str, ...]  # where the key comes from; the first one set wins
    fallback_key: str | None  # the placeholder sent when none is set (local servers that want some key)
    wire: str = "openai"  # the wire format (a key of ``providers.wires.WIRES``): OpenAI's unless named


#: provider -> its row. Anthropic and Google speak their own wire formats, the mock answers in process;
#: every other row speaks OpenAI's.
PROVIDERS: dict[str, ProviderRow] = {
    "openai": ProviderRow("https://api.openai.com/v1", "OPENAI_BASE_URL", ("OPENAI_API_KEY",), None),
    "vllm": ProviderRow("http://localhost:8000/v1", "VLLM_BASE_URL", ("VLLM_API_KEY",), "EMPTY"),
    "ollama": ProviderRow("http://localhost:11434/v1", "OLLAMA_BASE_URL", ("OLLAMA_API_KEY",), "ollama"),
    "anthropic": ProviderRow("https://api.anthropic.com", "ANTHROPIC_BASE_URL", ("ANTHROPIC_API_KEY",), None,
                             wire="anthropic"),
    "google": ProviderRow("https://generativelanguage.googleapis.com", "GOOGLE_GEMINI_BASE_URL",
                          ("GEMINI_API_KEY", "GOOGLE_API_KEY"), None, wire="google"),
    "mock": ProviderRow("mock://", None, (), None, wire="mock"),
}

#: ``openai-api/<service>/<model>``: any OpenAI-compatible service without a row, its server in
#: ``$<SERVICE>_BASE_URL`` and its key in ``$<SERVICE>_API_KEY`` (Inspect AI's convention)
GENERIC = "openai-api"


def generic_row(service: str) -> ProviderRow:
    """The row of ``openai-api/<service>/…``: ``together`` reads ``$TOGETHER_BASE_URL`` and ``$TOGETHER_API_KEY``."""
    prefix = service.upper().replace("-", "_")
    return ProviderRow(None, f"{prefix}_BASE_URL", (f"{prefix}_API_KEY",), None)


def row_key_variables() -> tuple[str, ...]:
    """Every row's key variables, in table order, each once."""
    return tuple(dict.fromkeys(name for row in PROVIDERS.values() for name in row.key_variables))


def check_rows(rows: Mapping[str, ProviderRow], wires: Collection[str]) -> None:
    """Refuse (ValueError, naming the row) a row whose wire format is not one of ``wires``."""
    for provider, row in rows.items():
        wire = row.wire
        if wire not in wires:
            raise ValueError(f"provider row {provider!r} names the wire format {wire!r}, not one of {', '.join(wires)}")
