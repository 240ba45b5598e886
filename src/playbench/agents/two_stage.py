"""SmartPlay's two-stage agent (specs/smartplay.md §3.2–3.3): think, then name the action."""

from typing import TYPE_CHECKING, Any

from playbench.agents.base import Decision, EpisodeContext, Turn
from playbench.agents.chat import add_usage, ask
from playbench.agents.prompts import balrog, smartplay
from playbench.agents.prompts.matching import smartplay_compat, smartplay_fixed
from playbench.models.types import Message, messages_record

if TYPE_CHECKING:  # the model (and aiohttp under it) loads only for a model-backed run
    from playbench.models.model import Model


def trim_history(history: str, drop: int) -> str:
    """``history`` without its ``drop`` oldest ``Player Observation Step`` blocks (header count updated)."""
    if not drop or not history:
        return history
    head, sep, rest = history.partition("\n\n" + smartplay.HISTORY_BLOCK)
    if not sep:
        return history
    blocks = (smartplay.HISTORY_BLOCK + rest).split("\n\n" + smartplay.HISTORY_BLOCK)
    blocks = [blocks[0]] + [smartplay.HISTORY_BLOCK + b for b in blocks[1:]]
    kept = blocks[drop:]
    if not kept:
        return ""
    if head.startswith("Most recent "):
        head = smartplay.HISTORY_HEADER.format(n=len(kept))
    return head + "\n\n" + "\n\n".join(kept)


def history_blocks(history: str) -> int:
    """How many observation blocks a history text holds."""
    return history.count(smartplay.HISTORY_BLOCK)


class TwoStageAgent:
    """Two chat calls per step; the second answer is matched to a legal action (compat or fixed rule)."""

    strategy = "two-stage"

    def __init__(self, params: Any, model: "Model") -> None:
        self.p = params
        self.model = model
        self.ctx: EpisodeContext | None = None

    async def start(self, ctx: EpisodeContext) -> None:
        """Nothing is carried between steps except the game's own history text."""
        self.ctx = ctx

    def _base(self, turn: Turn, dropped: int) -> list[Message]:
        assert self.ctx is not None
        info = turn.info
        manual = str(info.get("manual") or self.ctx.manual or "")
        legal = turn.legal_actions
        if legal and balrog.should_list(self.p.list_actions, manual, legal):  # opt-in: not in SmartPlay's request
            manual = f"{manual}\n\n{balrog.action_list(legal)}" if manual else balrog.action_list(legal)
        history = trim_history(str(info.get("history") or ""), dropped)
        obs = info.get("obs")
        messages = [Message("system", smartplay.SYSTEM)]
        if manual:
            messages.append(Message("system", manual))
        if history:
            messages.append(Message("system", history))
        messages.append(Message("system", smartplay.OBSERVATION.format(obs=turn.observation if obs is None else obs)))
        return messages

    async def act(self, turn: Turn) -> Decision:
        """Stage 1 (think), stage 2 (choose), then match."""
        assert self.ctx is not None, "start() must be called first"
        limit = history_blocks(str(turn.info.get("history") or ""))
        out1, _, drop1 = await ask(self.model, lambda d: [*self._base(turn, d), Message("user", smartplay.Q1)],
                                   limit, step=1)

        def stage2(d: int) -> list[Message]:
            return [*self._base(turn, d), Message("user", smartplay.Q1), Message("assistant", out1.text),
                    Message("user", smartplay.Q2)]

        out2, sent, drop2 = await ask(self.model, stage2, limit, step=1)
        legal = turn.legal_actions
        if legal is None:
            action: str | None = out2.text
        else:
            action = smartplay_compat(out2.text, legal) if self.p.compat else smartplay_fixed(out2.text, legal)
        usage = add_usage(self.model.usage(out1), self.model.usage(out2))
        extra: dict[str, Any] = {"strategy": self.strategy, "stage1": out1.text, "matched": action is not None}
        if drop1 or drop2:
            extra["history_dropped"] = max(drop1, drop2)
        return Decision(raw=out2.text, action=action, messages=messages_record(sent), usage=usage, extra=extra)
