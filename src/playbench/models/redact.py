"""Keep API keys out of every string playbench writes: records, logs and error messages."""

import json
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from playbench.models.providers_table import row_key_variables

#: Environment variables that may hold secrets: every provider row's key variables (``providers_table``);
#: their values are redacted wherever they appear. ``watch_variable`` adds more (a generic service's).
KEY_VARIABLES = row_key_variables()
_extra: set[str] = set()
_watched: list[str] = list(KEY_VARIABLES)
# Read on every answer, so cheaply: the environment's own mapping (bytes on POSIX) when it has one, and the
# sorted list recomputed only when a value or the extra secrets change.
_ENV = getattr(os.environ, "_data", None)
_ENV_KEYS: list[object] = [os.environ.encodekey(name) for name in _watched] if _ENV is not None else []
_cached: tuple[object, list[str]] = (None, [])
# Header and query forms keys travel in, in case a server echoes a request back; each with a word it cannot
# match without (checked on the lowercased text first: most answers hold none of them)
_PATTERNS = (
    re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?(?:bearer|basic)\s+)[^\s'\"]+"),
    re.compile(r"(?i)((?:x-api-key|x-goog-api-key)['\"]?\s*[:=]\s*['\"]?)[^\s'\",}]+"),
    # a key-like query parameter (the words of ``QUERY_KEY_WORDS``; names bounded so the scan stays linear)
    re.compile(r"(?i)([?&][^=&#\s'\"]{0,40}?(?:key|token|secret|passw|sig|auth|credential)[^=&#\s'\"]{0,40}=)"
               r"[^&#\s'\"]+"),
    # credentials inside a URL (user:password@host); anchored and bounded so that long model answers stay
    # linear (an unanchored ``\w+://`` is quadratic on a long word)
    re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/@\s'\"]{1,1024}(?=@)"),
)
_NEEDLES = ("authorization", "api-key", "=", "://")
#: each pattern with its word, paired once (not at every answer)
_CHECKS = tuple(zip(_NEEDLES, _PATTERNS, strict=True))


def register_secret(value: str | None) -> None:
    """Remember a secret obtained elsewhere so ``redact`` hides it too."""
    global _cached
    if value and len(value) >= 4:
        _extra.add(value)
        _cached = (None, [])


def watch_variable(name: str) -> None:
    """Treat environment variable ``name`` as holding a key from now on, as the table's key variables are."""
    global _cached
    if name not in _watched:
        _watched.append(name)
        if _ENV is not None:
            _ENV_KEYS.append(os.environ.encodekey(name))
        _cached = (None, [])


def secrets() -> list[str]:
    """Every known secret value, longest first (so overlapping keys are hidden whole)."""
    global _cached
    if _ENV is not None:
        state: object = tuple(map(_ENV.get, _ENV_KEYS))  # map: no generator per answer
    else:
        state = tuple(os.environ.get(name) for name in _watched)
    if state != _cached[0]:
        found = {os.environ.get(name, "") for name in _watched} | _extra
        _cached = (state, sorted((s for s in found if len(s) >= 4), key=len, reverse=True))
    return _cached[1]


def _lowered(text: str) -> str:
    """``text`` lowercased so that every word a pattern matches (IGNORECASE) appears in it.

    lower() keeps the dotless ``ı`` (which matches ``i``) and turns ``İ`` into ``i`` and a combining dot.
    """
    return text.lower().replace("\u0131", "i").replace("\u0307", "")


def redact(text: str) -> str:
    """``text`` with every known key value and key-carrying header replaced by ``***``."""
    for secret in secrets():
        text = text.replace(secret, "***")
    lowered = _lowered(text)
    for needle, pattern in _CHECKS:
        if needle in lowered:
            text = pattern.sub(r"\1***", text)
    return text


# -- URLs: what a run records and prints of a server's address -----------------------------------------

#: a query parameter whose name (any case) holds one of these words carries a credential (``api-key``,
#: ``key``, ``access_token``, ``sig``, ``auth`` ...): its value is masked wherever the URL is shown
QUERY_KEY_WORDS = ("key", "token", "secret", "passw", "sig", "auth", "credential")


def _key_like_query_name(name: str) -> bool:
    lowered = unquote(name).lower()
    return any(word in lowered for word in QUERY_KEY_WORDS)


def mask_url(url: str | None) -> str | None:
    """``url`` as a run records and prints it: no ``user:password@``, key-like query values as ``***``.

    A comma-separated list is masked part by part. The request itself uses the URL as given.
    """
    if not url:
        return url
    if "," in url:
        return ",".join(mask_url(part.strip()) or "" for part in url.split(","))
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    netloc = parts.netloc.rpartition("@")[2]
    query = "&".join(_masked_pair(pair) for pair in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _masked_pair(pair: str) -> str:
    name, sep, _ = pair.partition("=")
    return f"{name}=***" if sep and _key_like_query_name(name) else pair


def url_secrets(url: str | None) -> list[str]:
    """The credentials ``url`` carries (its password, its key-like query values), percent-decoded."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [unquote(parts.password)] if parts.password else []
    for pair in parts.query.split("&"):
        name, sep, value = pair.partition("=")
        if sep and value and _key_like_query_name(name):
            found.append(unquote(value))
    return found


# -- -M settings that would carry a key into run.json ----------------------------------------------------

#: a setting or header name whose last word (``-`` read as ``_``, any case) is one of these is a credential
_CREDENTIAL_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "authorization", "auth",
                               "cookie", "credential", "credentials", "signature", "sig", "bearer"})
#: ... except ``key`` after a word that makes it something else (``prompt_cache_key``)
_NOT_SECRET_KEYS = frozenset({"cache", "idempotency", "partition", "sort"})


def credential_name(name: str) -> bool:
    """Whether a ``-M`` setting (or a header or key inside one) named ``name`` would carry a credential.

    The rule: the name's last word (words split on ``_`` and ``-``, any case) is ``key``, ``apikey``,
    ``token``, ``secret``, ``password``, ``authorization``, ``auth``, ``cookie``, ``credential(s)``,
    ``signature``, ``sig`` or ``bearer`` — so ``api_key``, ``x-api-key``, ``access_token``,
    ``Authorization`` are credentials, ``max_tokens``, ``stop_token_ids`` and ``prompt_cache_key`` are not.
    """
    words = [w for w in name.lower().replace("-", "_").split("_") if w]
    if not words or words[-1] not in _CREDENTIAL_WORDS:
        return False
    return not (words[-1] == "key" and len(words) > 1 and words[-2] in _NOT_SECRET_KEYS)


def credential_setting(params: Mapping[str, Any]) -> str | None:
    """The first ``-M`` setting of ``params`` that carries a credential, in words (None when none does).

    A setting carries one when its name is a credential name (:func:`credential_name`), when a mapping
    inside its value (``extra_headers``, an extra body; JSON text is read as JSON) has a key with such a
    name, or when any text in it is key-like (:func:`key_like`).
    """
    for name, value in params.items():
        if credential_name(str(name)):
            return f"-M {name}"
        for path, text in _walk(_parsed(value)):
            if path is not None:
                return f"-M {name} (its {path!r})"
            if text is not None and key_like(text):
                return f"-M {name} (its value)"
    return None


#: the shapes of providers' keys (OpenAI's and Anthropic's ``sk-…``, Google's ``AIza…``, Hugging Face's ``hf_…``)
_KEY_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|hf_[A-Za-z0-9]{30,})")
#: ``name: value`` or ``name=value`` inside a text: JSON a shell stripped of its quotes (``{api_key:…}``)
_NAMED_VALUE = re.compile(r"([A-Za-z][A-Za-z0-9_-]{0,60})['\"]?\s*[:=]\s*['\"]?[^\s'\",}\]]")


def key_like(text: str) -> bool:
    """Whether ``text`` would carry a key.

    It does when it holds a known key or anything :func:`redact` hides (``Authorization: Bearer …``, a
    key-like query value, a URL's password), starts ``Bearer``/``Basic``, holds a provider key's shape
    (``sk-…``), or gives a credential name a value (``api_key:…``, as a shell leaves quoted JSON).
    """
    if redact(text) != text or _KEY_SHAPES.search(text) or re.match(r"(?i)\s*(bearer|basic)\s+\S", text):
        return True
    return any(credential_name(found.group(1)) for found in _NAMED_VALUE.finditer(text))


def _parsed(value: Any) -> Any:
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _walk(value: Any, depth: int = 0) -> Iterator[tuple[str | None, str | None]]:
    """(a credential-named key inside ``value``, None) and (None, each text) found in ``value``."""
    if depth > 20:
        return
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if credential_name(str(key)):
                yield str(key), None
            yield from _walk(inner, depth + 1)
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from _walk(inner, depth + 1)
    elif isinstance(value, str):
        yield None, value
