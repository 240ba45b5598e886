"""BALROG's prompt strategies over a Model: naive, cot, robust-naive, robust-cot, custom, few-shot.

Exact texts, history and parsing of specs/balrog.md §3 in ``compat`` mode; the B5–B8 fixes by
default. A fresh agent is built for every episode, so no state leaks between episodes (B8).
"""

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import numpy as np

from playbench.agents.base import Decision, EpisodeContext, Turn
from playbench.agents.chat import ask, observation_image, with_suffix
from playbench.agents.few_shot import demo_candidates, demo_messages, load_demos, same_instance
from playbench.agents.prompts import balrog, parse
from playbench.agents.prompts.history import HistoryBuilder
from playbench.agents.prompts.matching import balrog_valid
from playbench.core.seeding import derive_seed
from playbench.models.types import Message, messages_record

if TYPE_CHECKING:  # the model (and aiohttp under it) loads only for a model-backed run
    from playbench.models.model import Model

_FIRST = object()  # "no previous step yet"


class BalrogAgent:
    """The naive agent; subclasses change the suffix and the parsing."""

    strategy = "naive"
    suffix = balrog.NAIVE
    suffix_only_on_user = True
    changes_one_step_prompt = False  # naive sends a one-step task's official prompt unchanged

    def __init__(self, params: Any, model: "Model") -> None:
        self.p = params
        self.model = model
        self.compat: bool = params.compat
        self.ctx: EpisodeContext | None = None
        self.builder: HistoryBuilder | None = None
        self.prev: Any = _FIRST
        self.pending_default: str | None = None
        self.listed: list[str] | None = None

    # -- episode ------------------------------------------------------------------------------

    async def start(self, ctx: EpisodeContext) -> None:
        """Fresh state for a new episode."""
        self.ctx = ctx
        self.builder = None
        self.prev = _FIRST
        self.pending_default = None
        self.listed = None

    def _instruction(self, turn: Turn) -> str | None:
        assert self.ctx is not None
        manual = turn.info.get("manual") or self.ctx.manual or ""
        legal = turn.legal_actions
        if legal and self._should_list(manual, legal):
            manual = f"{manual}\n\n{balrog.action_list(legal)}" if manual else balrog.action_list(legal)
        self.listed = legal
        return manual or None

    def _should_list(self, text: str, legal: list[str]) -> bool:
        # Opt-in only: BALROG's own prompts describe the actions in prose, and adding a list would
        # change the benchmark's request.
        return balrog.should_list(self.p.list_actions, text, legal)

    def _observe(self, turn: Turn) -> None:
        assert self.builder is not None and self.ctx is not None
        info = turn.info
        long_term = info.get("long_term_context")
        long_term = turn.observation if long_term is None else str(long_term)
        if self.pending_default is not None and self.p.feedback_on_invalid_action:
            long_term = balrog.FEEDBACK.format(action=self.pending_default, text=long_term)
        legal = turn.legal_actions
        if legal and legal != self.listed and self._should_list("", legal):
            long_term = f"{long_term}\n\n{balrog.action_list(legal)}"  # the action set changed this step
        image = observation_image(info) if self.p.max_image_history > 0 else None
        self.builder.update_observation(long_term, str(info.get("short_term_context") or ""), image)

    def _record_previous(self) -> None:
        assert self.builder is not None
        if self.prev is _FIRST:
            return
        if self.prev:
            self.builder.update_action(self.prev)
        elif not self.compat:  # B6: always record the action turn
            self.builder.update_action(balrog.NO_VALID_ACTION)

    # -- prompt and parsing (overridden by strategies) -----------------------------------------

    def messages(self, dropped: int) -> list[Message]:
        """The prompt with ``dropped`` oldest history events left out."""
        assert self.builder is not None
        return with_suffix(self.builder.get_prompt(skip=dropped), self.suffix, self.suffix_only_on_user)

    def parse(self, text: str) -> tuple[str | None, dict[str, Any]]:
        """(parsed completion, extra fields) of an answer."""
        return parse.naive(text, self.compat), {}

    # -- acting --------------------------------------------------------------------------------

    def _request(self, dropped: int) -> list[Message]:
        return self._as_sent(self.messages(dropped))

    def _as_sent(self, messages: list[Message]) -> list[Message]:
        """``messages``, each marked to go as a list of content parts under compat (BALROG's client's form)."""
        if self.compat:
            for m in messages:  # in place: a history message is the same object at every step, always marked
                m.parts = True
        return messages

    def act(self, turn: Turn) -> Coroutine[Any, Any, Decision]:
        """One model call (plus trimming retries when the context overflows).

        The coroutine of the step itself, a one-step task's or a history step's: none around it to make, suspend
        and resume while the model thinks (and a frame less for each live episode to hold).
        """
        assert self.ctx is not None, "start() must be called first"
        return self._one_step(turn) if self.ctx.one_step else self._history_step(turn)

    async def _history_step(self, turn: Turn) -> Decision:
        """A step of a many-step task: the history prompt, its answer parsed."""
        assert self.ctx is not None
        if self.builder is None:
            self.builder = HistoryBuilder(self._instruction(turn), self.p.max_text_history, self.p.max_image_history,
                                          self.p.max_cot_history)
        self._record_previous()
        self._observe(turn)
        output, sent, dropped = await ask(self.model, self._request, max(0, len(self.builder) - 1))
        completion, extra = self.parse(output.text)
        action = balrog_valid(completion, turn.legal_actions, self.compat)
        self.prev = completion
        self.pending_default = self.ctx.game.default_action if action is None else None
        extra = {"strategy": self.strategy, "completion": completion, **extra}
        if output.reasoning:
            extra["model_reasoning"] = output.reasoning
        if dropped:
            extra["history_dropped"] = dropped
        return Decision(raw=output.text, action=action, messages=messages_record(sent),
                        usage=self.model.usage(output), extra=extra)

    async def _one_step(self, turn: Turn) -> Decision:
        """A one-step task: its official prompt, unchanged unless explicitly allowed.

        The official request is ``info["messages"]`` where the game gives one (system + user, as the
        original sent it), else the observation as one user message.
        """
        image = observation_image(turn.info)
        official = turn.info.get("messages")
        if official:
            sent = [Message(m["role"], m["content"]) for m in official]
        else:
            sent = [Message("user", turn.observation)]
        if image:
            sent[-1].images = (*sent[-1].images, image)
        if self.changes_one_step_prompt:
            sent = with_suffix(sent, self.one_step_suffix(), only_user=False)
        output = await self.model.generate(self._as_sent(sent))
        action: str | None = output.text
        if self.changes_one_step_prompt:
            completion, _ = self.parse(output.text)
            action = completion if completion else output.text
        return Decision(raw=output.text, action=action, messages=messages_record(sent),
                        usage=self.model.usage(output), extra={"strategy": self.strategy})

    def one_step_suffix(self) -> str:
        """The suffix a strategy adds to a one-step prompt (only with ``allow_prompt_change``)."""
        return self.suffix


class CotAgent(BalrogAgent):
    """Chain of thought: ``ACTION: …`` at the end; the latest reasoning is kept as ``Previous plan``."""

    strategy = "cot"
    suffix = balrog.COT
    suffix_only_on_user = False
    changes_one_step_prompt = True

    def parse(self, text: str) -> tuple[str | None, dict[str, Any]]:
        """Everything after the last ``ACTION:``."""
        if self.builder is not None:
            self.builder.update_reasoning(text)
        return parse.cot(text, self.compat), {"reasoning": text}


class RobustNaiveAgent(BalrogAgent):
    """``<|ACTION|>…<|END|>`` tags, no reasoning."""

    strategy = "robust-naive"
    suffix = balrog.ROBUST_NAIVE
    changes_one_step_prompt = True

    def parse(self, text: str) -> tuple[str | None, dict[str, Any]]:
        """The first tagged action, else the whole answer."""
        return parse.robust(text, self.compat, with_cot=False), {}


class RobustCotAgent(BalrogAgent):
    """Reasoning, then ``<|ACTION|>…<|END|>``; the reasoning is not kept in the history."""

    strategy = "robust-cot"
    suffix = balrog.ROBUST_COT
    suffix_only_on_user = False
    changes_one_step_prompt = True

    def parse(self, text: str) -> tuple[str | None, dict[str, Any]]:
        """The first tagged action, else the failure string (compat) or nothing (fixed)."""
        return parse.robust(text, self.compat, with_cot=True), {"reasoning": text}


class CustomAgent(BalrogAgent):
    """BALROG's planning agent: keeps a plan and updates it from ``PLAN:`` lines."""

    strategy = "custom"
    changes_one_step_prompt = True

    def __init__(self, params: Any, model: "Model") -> None:
        super().__init__(params, model)
        self.plan: str | None = None

    async def start(self, ctx: EpisodeContext) -> None:
        """Fresh state (the plan too: B8)."""
        await super().start(ctx)
        self.plan = None

    def _plan_suffix(self) -> str:
        head = f"Current Plan:\n{self.plan}\n" if self.plan else "You have no plan yet.\n"
        return f"{head}\n{balrog.CUSTOM}"

    def messages(self, dropped: int) -> list[Message]:
        """History plus the plan block."""
        assert self.builder is not None
        return with_suffix(self.builder.get_prompt(skip=dropped), self._plan_suffix(), only_user=True)

    def one_step_suffix(self) -> str:
        """The plan block."""
        return self._plan_suffix()

    def parse(self, text: str) -> tuple[str | None, dict[str, Any]]:
        """(action, plan); a changed plan replaces the stored one."""
        plan, action = parse.custom(text, self.compat)
        if plan != balrog.NO_PLAN_CHANGE:
            self.plan = plan
        return action, {"plan": plan}


class FewShotAgent(BalrogAgent):
    """Naive prompting after demonstration episodes read from a playbench run (``-A demos=PATH``)."""

    strategy = "few-shot"
    changes_one_step_prompt = True

    def __init__(self, params: Any, model: "Model") -> None:
        super().__init__(params, model)
        self.icl: list[Message] = []

    async def start(self, ctx: EpisodeContext) -> None:
        """Pick this episode's demonstrations (seeded by the episode; never the same instance)."""
        await super().start(ctx)
        rng = np.random.default_rng(derive_seed("few-shot", ctx.task_id, ctx.seed))
        demos = [d for d in demo_candidates(load_demos(self.p.demos), ctx.task_id, rng) if not same_instance(d, ctx)]
        order = rng.permutation(len(demos))
        chosen = [demos[i] for i in order[: self.p.icl_episodes]]
        self.icl = demo_messages(chosen, self.p.max_icl_history)

    def messages(self, dropped: int) -> list[Message]:
        """Instruction (``PLAY`` replaced), demonstrations, the turn marker, the history, S1."""
        assert self.builder is not None
        head = []
        if self.builder.system_prompt:
            head.append(Message("user", self.builder.system_prompt.replace("PLAY", balrog.ICL_PLAY)))
        head += self.icl
        head.append(Message("user", balrog.ICL_TURN))
        body = self.builder.get_prompt(include_system=False, skip=dropped)
        return with_suffix(head + body, self.suffix, only_user=True)
