"""Anthropic Messages API."""

import hashlib
import weakref
from dataclasses import dataclass
from typing import Any, ClassVar

from playbench.core.ledger import CURRENT_EPISODE
from playbench.models.providers.base import (
    Provider,
    as_object,
    count,
    label,
    malformed,
    optional_object,
    optional_text,
    reports_tokens,
)
from playbench.models.types import GenerateConfig, Message, ModelOutput

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096  # the Messages API requires max_tokens
#: a cache breakpoint: the prompt up to and including the block that carries it is cached for 5 minutes
BREAKPOINT = {"type": "ephemeral"}


def stable_ends(messages: list[Message], history: bool = True) -> set[int]:
    """Indices of the messages whose end is a cache breakpoint: the ends of the prompt's stable prefix.

    The last system message (the system text is one block), the first other message when the request goes on
    past it (the instruction turn, which windowed histories keep), and, with ``history``, the message just
    before the last user message (the history a later step of the episode repeats). The last user message
    itself is new at every step, and a one-turn request (MANGO, GRASP) gets no message breakpoint: a cache
    written there would be paid for (1.25 times the input price) and never read. Three at most, under the
    API's four.
    """
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    ends = {i for i, m in enumerate(messages) if m.role == "system"}
    ends = {max(ends)} if ends else set()
    turns = [i for i, m in enumerate(messages) if m.role != "system" and i < last_user]
    if turns:
        ends.add(turns[0])
        if history:
            ends.add(turns[-1])
    return ends


@dataclass(frozen=True)
class Fingerprint:
    """What the next request of an episode needs of the last one: hashes of what it sent, never its text."""

    whole: bytes  # the whole request: the same one again is a retry
    prefix: bytes  # its system text and its turns before its last user message (its history breakpoint's prefix)
    turns: int  # how many turns (non-system messages) that prefix holds
    history: bool  # whether it carried the history breakpoint


def prefix_hashes(messages: list[Message]) -> tuple[list[bytes], int]:
    """(hash of the system text and the first k turns, for k = 0 .. all turns; turns before the last user message).

    Hashed as the request is sent: every system message joins the one system text ahead of the turns.
    """
    digest = hashlib.sha256()
    for m in messages:
        if m.role == "system":
            digest.update(f"{len(m.content)}:{m.content}".encode("utf-8", "surrogatepass"))
    cuts = [digest.digest()]
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    before = 0
    for i, m in enumerate(messages):
        if m.role == "system":
            continue
        digest.update(f"\0{m.role}\0{len(m.content)}:{m.content}".encode("utf-8", "surrogatepass"))
        for img in m.images:
            digest.update(f"\0image {len(img.b64)}:{img.b64}".encode())
        cuts.append(digest.digest())
        before += i < last_user
    return cuts, before


class EpisodePrefixes:
    """The fingerprint of the last request each running episode sent (one per episode, forgotten with it).

    Decides whether a request's history breakpoint pays: it does when the request extends the episode's
    previous one (starts with that request's history prefix), as a growing conversation does and as the
    next request will then likely do too. When it does not (BALROG once its 16-step window slides, or
    the episode's first request), a history written now would be paid for at 1.25 times the input price
    and not read by the next request, so only the stable system/instruction part is marked. Episodes are
    told apart by their ledger (:data:`playbench.core.ledger.CURRENT_EPISODE`), so concurrent episodes
    never see each other's requests; an entry goes when its ledger does.
    """

    def __init__(self) -> None:
        self._last: dict[int, Fingerprint] = {}  # id of a live ledger -> its last request

    def __len__(self) -> int:
        return len(self._last)

    def history_pays(self, messages: list[Message]) -> bool:
        """Whether ``messages`` should carry the history breakpoint; remembers them for the episode's next request.

        Outside an episode (no ledger) always: no earlier request to go by.
        """
        ledger = CURRENT_EPISODE.get()
        if ledger is None:
            return True
        cuts, before = prefix_hashes(messages)
        key = id(ledger)
        previous = self._last.get(key)
        if previous is None:
            history = False  # the episode's first request: no history of its own yet
            weakref.finalize(ledger, self._last.pop, key, None)  # forgotten with the episode
        elif previous.whole == cuts[-1]:
            return previous.history  # a retry: the same breakpoints as the attempt before
        else:
            history = previous.turns <= before and cuts[previous.turns] == previous.prefix
        self._last[key] = Fingerprint(cuts[-1], cuts[before], before, history)
        return history


def wire_request(messages: list[Message], breakpoints: bool = False, history: bool = True) -> tuple[
        str | list[dict[str, Any]], list[dict[str, Any]]]:
    """(system, messages): system messages joined with blank lines; same-role turns merged.

    With ``breakpoints`` the stable prefix's ends (:func:`stable_ends`, the history's only with ``history``)
    carry ``cache_control`` and the system text goes as one text block holding it; the text the model reads
    is the same either way.
    """
    ends = stable_ends(messages, history) if breakpoints else set()
    text = "\n\n".join(m.content for m in messages if m.role == "system")
    system: str | list[dict[str, Any]] = text
    if text and any(messages[i].role == "system" for i in ends):
        system = [{"type": "text", "text": text, "cache_control": dict(BREAKPOINT)}]
    turns: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if m.role == "system":
            continue
        blocks: list[dict[str, Any]] = [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": img.b64}}
            for img in m.images
        ]
        blocks.append({"type": "text", "text": m.content or " "})
        if i in ends:
            blocks[-1]["cache_control"] = dict(BREAKPOINT)
        if turns and turns[-1]["role"] == m.role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": m.role, "content": blocks})
    if turns and turns[0]["role"] != "user":  # the API wants a user turn first
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": "(start)"}]})
    return system, turns


class AnthropicProvider(Provider):
    """``POST {base}/v1/messages`` with ``x-api-key``."""

    name = "anthropic"
    reserved = ("model", "messages", "stream", "system")
    unsupported: ClassVar[dict[str, str]] = {"reasoning_effort": "give extended thinking as -M 'thinking={\"type\": \"enabled\", "
                                       "\"budget_tokens\": 2048}'"}  # cache_prompt: ours (breakpoints)

    def __init__(self, model: str, base_url: str, api_key: str | None, key_source: str = "the API key") -> None:
        super().__init__(model, base_url, api_key, key_source)
        self.episodes = EpisodePrefixes()  # where the history breakpoint pays, per running episode

    def body(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body (in an episode, the history breakpoint only where the episode's prefix is reused)."""
        breakpoints = config.cache_prompt is not False
        history = self.episodes.history_pays(messages) if breakpoints else True
        system, turns = wire_request(messages, breakpoints, history)
        body: dict[str, Any] = {"model": self.model, "messages": turns,
                                "max_tokens": config.output_budget() or DEFAULT_MAX_TOKENS}
        if system:
            body["system"] = system
        # seed: the Messages API has none (not sent, as before: runs recorded with it still resume)
        for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("top_k", "top_k"),
                             ("stop", "stop_sequences")):
            if getattr(config, ours) is not None:
                body[theirs] = getattr(config, ours)
        body.update(config.extras())
        return body

    def request(self, messages: list[Message], config: GenerateConfig) -> tuple[str, dict[str, str], dict[str, Any]]:
        """(URL, headers, body): the key in ``x-api-key`` (beside the URL's basic auth, if any)."""
        headers = {"anthropic-version": API_VERSION, **self.auth_headers()}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return f"{self.base_url}/v1/messages", headers, self.body(messages, config)

    def parse(self, data: Any) -> ModelOutput:
        """Text blocks (joined) and thinking blocks of ``content``, and ``usage``.

        Anthropic's ``input_tokens`` counts only the prompt tokens after the last cache breakpoint; the
        tokens read from and written to the prompt cache come apart. Added together they are every prompt
        token, which is what ``input_tokens`` means everywhere in playbench.
        """
        data = as_object(data, "the answer")
        content = data.get("content")
        if not isinstance(content, list):
            raise malformed("no content list in the answer")
        texts, thoughts = [], []
        for block in content:
            block = as_object(block, "a content block")
            if block.get("type") == "text":
                texts.append(optional_text(block.get("text"), "a text block's text") or "")
            elif block.get("type") == "thinking":
                thoughts.append(label(block.get("thinking")) or "")
        usage = optional_object(data.get("usage"), "usage")
        read, written = usage.get("cache_read_input_tokens"), usage.get("cache_creation_input_tokens")
        read = None if read is None else count(read, "usage.cache_read_input_tokens")
        written = None if written is None else count(written, "usage.cache_creation_input_tokens")
        return ModelOutput(
            text="".join(texts).strip(),
            input_tokens=count(usage.get("input_tokens"), "usage.input_tokens") + (read or 0) + (written or 0),
            output_tokens=count(usage.get("output_tokens"), "usage.output_tokens"),
            reasoning="\n".join(thoughts) or None,
            stop_reason=label(data.get("stop_reason")),
            cache_read_tokens=read,
            cache_write_tokens=written,
            tokens_reported=reports_tokens(usage, "input_tokens", "output_tokens"),
        )
