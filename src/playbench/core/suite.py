"""A suite's declaration: its tasks, groups and check of facts, and the hooks its report and viewer call.

The tasks are built from the suite's table of facts. Every suite package ``playbench.suites.<name>`` has a ``tasks`` module exposing ``SUITE``; the registry
reads it (see ``registry.load_suites``). Nothing registers itself as a side effect of an import.

The hooks are named, not imported: ``summary="package.module:NAME"`` names a ``SummaryHooks`` object and
``pictures=...`` a ``PictureHooks`` one, imported on first use (as Gymnasium's ``"module:Name"`` entry
points), so listing tasks loads no report code, and a suite declared outside playbench
(``PLAYBENCH_SUITES``) brings its own. ``demos=...`` names the reader of the suite's own demonstration
records (BALROG's ``.npz``), which the few-shot agent calls without importing any suite.

A suite may own folder formats and subcommands too. ``formats={"balrog": "module:NAME"}`` names each format's
``FormatHooks`` (how ``report``, ``export --format NAME`` and ``verify`` detect, read, show, write and re-play
such a folder); ``commands=(Command(name, help, "module:NAME"),)`` adds ``playbench NAME`` (a click command
or group), listed by ``playbench --help`` from the row and imported only when run. So the library and the
command line name no suite: they reach one through its row.
"""

from __future__ import annotations  # the record types are named in annotations only: listing loads no pydantic

import functools
import importlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from playbench.core.errors import PlaybenchError
from playbench.core.figures import Figure, RunSummary
from playbench.core.task import Task

if TYPE_CHECKING:
    from playbench.core.records import EpisodeRecord, RunConfig, StepRecord
    from playbench.core.verdict import VerifyResult


@dataclass(frozen=True)
class Group:
    """A group id that expands to several tasks, each with an optional preset.

    A preset is ``{"episodes": N, "params": {...}}``, used unless the user's ``--episodes``/``-T`` override it.
    """

    id: str
    description: str
    members: tuple[tuple[str, Mapping[str, Any]], ...]

    @classmethod
    def of(cls, group_id: str, description: str, members: Sequence[str | tuple[str, Mapping[str, Any]]]) -> Group:
        """A group from ids or ``(id, preset)`` pairs."""
        return cls(group_id, description, tuple((m, {}) if isinstance(m, str) else (m[0], dict(m[1])) for m in members))


def _no_check(task: Task) -> list[str]:
    return []


def _no_extras(task_id: str, records: list[EpisodeRecord]) -> dict[str, Any]:
    return {}


def _no_tables(summary: dict[str, Any]) -> list[Any]:
    return []


def _no_metric(task_id: str) -> Any:
    return None


def _no_figures(runs: list[RunSummary]) -> list[Figure]:
    return []


@dataclass(frozen=True)
class SummaryHooks:
    """What a suite adds to ``playbench report`` (its ``summary`` hook names one of these).

    ``summarize(records_by_task, scheduled)``: the suite's part of the JSON report (under the suite's
    name; None: nothing to add), from the ``ok`` and failed records of the suite's scheduled tasks;
    ``task_extras(task_id, records)``: keys added to that task's entry; ``render(summary)``: the rich
    renderables the text report prints (the summary's strings arrive inert); ``score_metric(task_id)``:
    the ``stats.metric.Metric`` a task's score is (None: a plain mean); ``figures(runs)``: what
    ``playbench plot`` draws from the summaries of several runs (``core.figures``).
    """

    summarize: Callable[[dict[str, list[EpisodeRecord]], dict[str, int]], dict[str, Any] | None]
    task_extras: Callable[[str, list[EpisodeRecord]], dict[str, Any]] = _no_extras
    render: Callable[[dict[str, Any]], list[Any]] = _no_tables
    score_metric: Callable[[str], Any] = _no_metric
    figures: Callable[[list[RunSummary]], list[Figure]] = _no_figures


def _no_picture(record: EpisodeRecord, steps: list[StepRecord]) -> str | None:
    return None


def _no_step_picture(record: EpisodeRecord, step: StepRecord) -> str | None:
    return None


@dataclass(frozen=True)
class PictureHooks:
    """SVG pictures a suite draws for the viewer (its ``pictures`` hook names one of these).

    ``episode_picture(record, steps)``: one picture of the whole episode; ``step_picture(record, step)``:
    one per step. Either returns None when it draws nothing for that episode. Tasks whose observation text
    the viewer draws by itself name a picture kind instead (``Task.picture``).
    """

    episode_picture: Callable[[EpisodeRecord, list[StepRecord]], str | None] = _no_picture
    step_picture: Callable[[EpisodeRecord, StepRecord], str | None] = _no_step_picture


#: A suite's ``demos`` hook: its demonstration records under a folder, by task id, each ``(seed, steps)``
#: with steps (observation, action) pairs; None when the folder holds none of that suite's records.
DemoReader = Callable[[Path], dict[str, list[tuple[int, list[tuple[str, str]]]]] | None]


class Policy(Protocol):
    """A reference policy (``random``, ``oracle``) playing alongside a format's re-play.

    The library's verify lends it (``PolicyLender``): agents are not a suite's to import. ``start`` is called
    after the game's reset with its ``info`` and game; ``act`` returns the action the policy names (None: none).
    """

    async def start(self, task: Task, index: int, seed: int, info: dict[str, Any], game: Any) -> None:
        """Begin an episode of ``task`` (its index and seed) on ``game``."""
        ...

    async def act(self, step: int, observation: str, info: dict[str, Any], legal: list[str] | None) -> str | None:
        """The action chosen at ``step``."""
        ...


#: agent name as a folder records it -> a maker of that reference policy; None when it names none (a model played)
PolicyLender = Callable[[str], Callable[[], Policy] | None]

#: what ``export`` hands a format's ``write``: each episode's record and its steps (None: no steps recorded)
#: A format's ``verify`` hook: (folder, lend) -> its findings; with settings when it names ``verify_options``
FolderVerify = Callable[[Path, PolicyLender], "VerifyResult"]
SettingsVerify = Callable[[Path, PolicyLender, Mapping[str, str]], "VerifyResult"]
Episodes = Iterable[tuple["EpisodeRecord", Sequence["StepRecord"] | None]]


#: A generation setting a side did not send, so the provider's default applied (``Comparable.settings``' value).
NOT_SENT = "not sent (provider default)"
#: The generation settings of a side where no model played (a reference policy, a published baseline).
NO_MODEL = "no model"


@dataclass(frozen=True)
class ComparedEpisode:
    """One episode (or published answer) of a folder as ``compare`` pairs it.

    ``task`` is playbench's task id; ``key`` pairs it within the task (what it is, the ``Comparable``'s
    ``key`` says); ``score`` is on the task's own scale, None when the episode has none: then ``status``
    says why, and it is counted as left out, never paired. Optional, for ``board``: ``usage``, the token
    counts the folder records for the episode (``input_tokens``, ``output_tokens``, ``calls``; empty when it
    records none), and ``source``, the file that shows its steps, relative to the folder.
    """

    task: str
    key: int | str
    score: float | None
    status: str = "ok"
    usage: Mapping[str, int] = field(default_factory=dict)
    source: str | None = None


@dataclass(frozen=True)
class PublishedFigure:
    """A figure a folder publishes, as it states it (nothing recomputed).

    ``mean`` on [0, 1], its ``standard_error`` on that scale and the ``episodes`` behind it (None: not stated).
    """

    mean: float
    standard_error: float | None = None
    episodes: int | None = None


@dataclass(frozen=True)
class Published:
    """The figures a folder publishes without the episodes behind them (a leaderboard row's summary alone).

    ``overall`` and ``environments`` (by playbench's environment: a task id's parent) as the folder states
    them; ``usage``: the token totals it states (``input_tokens``, ``output_tokens``; empty when it states none).
    """

    overall: PublishedFigure
    environments: Mapping[str, PublishedFigure]
    usage: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Comparable:
    """What ``compare`` reads of a folder: a format's ``episodes`` hook returns one.

    ``label`` names the side; ``key`` says what pairs episodes within a task (``"seed"``: the episode seed);
    ``run_key(record)`` keys a playbench run's ``ok`` record of one of the folder's tasks the same way, None
    when that record cannot be keyed: ``compare`` then refuses with ``unpairable`` (one line) rather than
    pair it with anything else. ``settings`` is the protocol the folder states, in compare's names
    (``temperature``, ``max_tokens``, ``agent``, ``history``, ``images``, ``parsing``, ``date``); a setting it
    does not state is absent. ``task_params`` gives, by task, the ``-T`` values its scores stand for (the
    scoring rule a re-scoring used); ``notes`` says what was left out and why. ``model`` names the model that
    answered as playbench does (``provider/name``, so ``board`` can price it), None when the folder names
    none or several. A folder that publishes figures alone holds no ``episodes`` and gives them as
    ``published``: ``compare`` has nothing to pair, ``board`` shows them as published. ``key_text(key)`` is
    a key as messages and pages show it (a format's key may carry what only pairing needs: BALROG's ``SEED@TAG``
    reads as its seed).
    """

    label: str
    episodes: tuple[ComparedEpisode, ...]
    key: str
    run_key: Callable[[EpisodeRecord], int | str | None]
    unpairable: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    task_params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    model: str | None = None
    published: Published | None = None
    key_text: Callable[[int | str], str] = str


@dataclass(frozen=True)
class Instance:
    """One episode a folder holds, as ``eval --instances`` plays it again: playbench's task id and its seed.

    ``problem`` says why playbench cannot play that instance again from its seed (None: it can); ``seed`` is
    None when the folder does not record it (``problem`` then says so). ``input_tokens`` and ``output_tokens``
    are the tokens the folder records the episode spent (None: not recorded), shown by ``eval --dry-run``.
    ``options``: what fixes the instance besides its seed, the reset options its game is prepared and reset
    with (``TaskSpec.options``; None: the seed alone fixes it).
    """

    task: str
    seed: int | None
    problem: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    options: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class FormatHooks:
    """A folder format a suite owns (each of its ``formats`` names one of these).

    ``title`` names such a folder in messages (``BALROG submission``). ``detect(folder)``: whether a folder
    (or a file) that is not a playbench run is one (cheap: ``report``, ``verify`` and ``compare`` ask it of
    each such path).
    ``read(folder)``: its figures as JSON (what ``report --json`` prints), refusing a bad file in one line;
    ``render(figures)``: the rich renderables ``report`` prints (its strings arrive inert). Optional:
    ``write(folder, episodes, config)`` writes a run's episodes into ``folder`` (new or empty) for
    ``export --format NAME`` and returns ``(episodes written, notes to show)``; ``verify(folder, lend)``
    re-plays the folder (``lend`` gives reference policies) into a ``core.verdict.VerifyResult``; a format
    that names ``verify_options`` (verify's ``-T KEY=VALUE`` settings: name -> its one-line help) is called
    ``verify(folder, lend, settings)``, each setting one of those names (another is refused before);
    ``episodes(path, options)`` reads it for ``compare`` (a ``Comparable``), ``options`` being compare's
    ``-S KEY=VALUE`` settings, each a name of ``options`` (name -> its one-line help); ``instances(folder, tasks)``:
    its episodes of the tasks ``tasks`` (id -> the run's ``-T`` values of it, which finding an instance may
    need) as ``Instance``s, each task's in the folder's episode order (what ``eval --instances`` plays; those
    of other tasks may be left out).
    """

    title: str
    detect: Callable[[Path], bool]
    read: Callable[[Path], dict[str, Any]]
    render: Callable[[dict[str, Any]], list[Any]]
    write: Callable[[Path, Episodes, RunConfig], tuple[int, list[str]]] | None = None
    verify: FolderVerify | SettingsVerify | None = None
    episodes: Callable[[Path, Mapping[str, str]], Comparable] | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    instances: Callable[[Path, Mapping[str, Mapping[str, Any]]], list[Instance]] | None = None
    verify_options: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Command:
    """A subcommand a suite adds: ``playbench NAME``.

    ``help`` is the first paragraph of the command's own help (``playbench --help`` lists it from here, importing
    nothing); ``command`` names the click command or group as ``"module:NAME"``, imported when it runs.
    """

    name: str
    help: str
    command: str


# "package.module:NAME", as an entry point names an object
_HOOK = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
# a format's or a command's name, as typed after --format or playbench
_NAME = re.compile(r"[a-z][a-z0-9-]*")


@functools.cache
def load_hook(spec: str) -> object:
    """The object a ``"module:NAME"`` spec names, its module imported on first use (then remembered)."""
    module_name, _, name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise PlaybenchError(f"hook {spec!r}: no module {module_name!r}") from None
        raise
    if not hasattr(module, name):
        raise PlaybenchError(f"hook {spec!r}: module {module_name!r} has no {name!r}")
    return getattr(module, name)


@dataclass(frozen=True)
class Suite:
    """What one suite package declares.

    ``tasks`` are built from the suite's facts table (each ``Task.facts`` is its row); ``check_facts``
    names what a task lacks for the suite's report (an empty list when it has every fact); ``summary`` and
    ``pictures`` name the suite's ``SummaryHooks`` and ``PictureHooks`` as ``"module:NAME"`` (None: none),
    ``demos`` its ``DemoReader``, ``formats`` each folder format's ``FormatHooks`` by the format's name, and
    ``commands`` the subcommands it adds.
    """

    name: str
    tasks: tuple[Task, ...] = ()
    groups: tuple[Group, ...] = ()
    check_facts: Callable[[Task], list[str]] = field(default=_no_check)
    summary: str | None = None
    pictures: str | None = None
    demos: str | None = None
    formats: Mapping[str, str] = field(default_factory=dict)
    commands: tuple[Command, ...] = ()

    def __post_init__(self) -> None:
        specs = [("summary", self.summary), ("pictures", self.pictures), ("demos", self.demos),
                 *((f"formats[{name!r}]", spec) for name, spec in self.formats.items()),
                 *((f"commands[{c.name!r}]", c.command) for c in self.commands)]
        for kind, spec in specs:
            if spec is not None and not _HOOK.fullmatch(spec):
                raise PlaybenchError(f"suite {self.name!r}: {kind}={spec!r} is not 'package.module:NAME'")
        for kind, name in [*(("format", n) for n in self.formats), *(("command", c.name) for c in self.commands)]:
            if not _NAME.fullmatch(name):
                raise PlaybenchError(f"suite {self.name!r}: {kind} name {name!r} is not lower-case letters, "
                                     "digits and '-'")

    def summary_hooks(self) -> SummaryHooks | None:
        """The suite's summary hooks, imported on first use (None when it declares none)."""
        return None if self.summary is None else _hooks(self.summary, SummaryHooks)

    def picture_hooks(self) -> PictureHooks | None:
        """The suite's picture hooks, imported on first use (None when it declares none)."""
        return None if self.pictures is None else _hooks(self.pictures, PictureHooks)

    def demo_reader(self) -> DemoReader | None:
        """The suite's reader of its own demonstration records, imported on first use (None: it has none)."""
        if self.demos is None:
            return None
        reader = load_hook(self.demos)
        if not callable(reader):
            raise PlaybenchError(f"hook {self.demos!r} is a {type(reader).__name__}, not a function")
        return cast(DemoReader, reader)


    def format_hooks(self, name: str) -> FormatHooks:
        """The hooks of the suite's format ``name`` (one of ``formats``), imported on first use."""
        return _hooks(self.formats[name], FormatHooks)


H = TypeVar("H", SummaryHooks, PictureHooks, FormatHooks)


def _hooks(spec: str, kind: type[H]) -> H:
    hooks = load_hook(spec)
    if not isinstance(hooks, kind):
        raise PlaybenchError(f"hook {spec!r} is a {type(hooks).__name__}, not a {kind.__name__}")
    return hooks
