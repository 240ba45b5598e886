"""The HTTP transport of every provider: one aiohttp session per event loop.

aiohttp keeps a cheap per-origin connection pool, which matters at hundreds of concurrent episodes on a
small machine (see benchmarks/throughput.py). It never retries on its own: every attempt is visible to
the one retry layer in :mod:`playbench.models.model`. Proxies are taken from the environment
(``HTTPS_PROXY`` and friends).
"""

import os
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
import yarl
from multidict import CIMultiDict

from playbench.core.turns import take_turn

_JSON_CONTENT = (("Content-Type", "application/json"),)


class ProtocolError(ConnectionError):
    """The connection failed or closed mid-answer, or the answer was not valid HTTP."""


@dataclass
class Response:
    """The parts of an HTTP answer the providers use."""

    status_code: int
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    content: bytes = b""

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (lenient)."""
        return self.content.decode("utf-8", "replace")


def _proxy_in_env() -> bool:
    # aiohttp looks proxies and .netrc up in a thread for every request when trust_env is on: only pay that
    # when a proxy is configured.
    return any(os.environ.get(name) for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
                                                  "https_proxy", "all_proxy"))


class HttpClient:
    """``await client.post(url, headers=..., json=...)`` with a total ``timeout`` (seconds) per request."""

    def __init__(self, timeout: float, max_connections: int) -> None:
        self.timeout = timeout
        self.max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None
        self._urls: dict[str, yarl.URL] = {}

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None:  # created lazily: a session belongs to the running event loop
            connector = aiohttp.TCPConnector(limit=self.max_connections, limit_per_host=self.max_connections)
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=aiohttp.ClientTimeout(total=self.timeout), trust_env=_proxy_in_env(),
                cookie_jar=aiohttp.DummyCookieJar(), skip_auto_headers=("User-Agent",))
        return self._session

    def _url(self, url: str) -> yarl.URL:
        # Parsed once per distinct URL (a provider posts to one or two), not on every request.
        parsed = self._urls.get(url)
        if parsed is None:
            parsed = self._urls[url] = yarl.URL(url)
        return parsed

    async def post(self, url: str, headers: dict[str, str], json: Any) -> Response:  # noqa: A002
        """One POST; raises TimeoutError or ProtocolError (a ConnectionError) on failure."""
        try:
            body = orjson.dumps(json)  # several times faster than json.dumps on long prompts
            all_headers = CIMultiDict(_JSON_CONTENT)  # what aiohttp would build from a dict anyway
            all_headers.update(headers)
            async with self._get_session().post(self._url(url), headers=all_headers, data=body) as answer:
                body = await answer.read()
                response = Response(answer.status, {k.lower(): v for k, v in answer.headers.items()}, body)
            await take_turn()  # the caller's CPU work on this answer starts in turn (see core.turns)
            return response
        except TimeoutError:
            raise TimeoutError(f"no answer within {self.timeout} s") from None
        except aiohttp.ClientError as exc:
            raise ProtocolError(f"{type(exc).__name__}: {exc}") from None

    async def aclose(self) -> None:
        """Close the pooled connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None
