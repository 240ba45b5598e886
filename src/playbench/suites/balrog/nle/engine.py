"""The one module that touches NLE, MiniHack and the legacy ``gym`` API (BALROG's NetHack stack).

Everything is imported lazily: playbench works without the ``nethack`` extra, and asking for a NetHack or
MiniHack game without it raises one clear PlaybenchError. The rest of the suite sees ``Engine``: seed,
reset, step by text action (with BALROG's AutoMore), and the raw NLE observation.
"""

import contextlib
import io
import warnings
from functools import cache
from types import ModuleType
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.suites.engines import NETHACK_INSTALL

INSTALL_HINT = f"the NetHack/MiniHack engine is not installed: run scripts/setup.sh or `{NETHACK_INSTALL}`"

#: The NLE observation keys BALROG asks MiniHack for.
MINIHACK_OBS_KEYS = ("glyphs", "blstats", "tty_chars", "inv_letters", "inv_strs", "tty_cursor", "tty_colors")
MORE = "--More--"


@cache
def modules() -> dict[str, ModuleType]:
    """Import gym, nle (balrog-nle) and minihack once, silencing gym's import-time notices."""
    try:
        with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import gym
            import minihack  # noqa: F401  (registers the MiniHack ids in gym)
            import minihack.envs.boxohack as boxohack
            import nle
            from nle import nethack, nle_language_obsv
            from nle.language_wrapper.wrappers import nle_language_wrapper
    except ImportError as exc:
        raise PlaybenchError(f"{INSTALL_HINT} ({exc})") from None
    if not hasattr(nle_language_wrapper, "NLELanguageWrapper"):
        raise PlaybenchError("the installed `nle` has no language wrapper: install balrog-nle==0.9.0, not nle")
    return {
        "gym": gym,
        "nle": nle,
        "nethack": nethack,
        "language": nle_language_obsv,
        "wrapper": nle_language_wrapper,
        "boxohack": boxohack,
    }


@cache
def action_table() -> dict[Any, list[str]]:
    """NLE action enum -> [first name, keys/aliases...]: the language wrapper's own table."""
    return dict(modules()["wrapper"].NLELanguageWrapper.all_nle_action_map)


def useful_action_names() -> list[str]:
    """First names of NLE's 86 "useful" actions, in NLE's order (BALROG's NetHack name list)."""
    table = action_table()
    return [table[a][0] for a in modules()["nethack"].USEFUL_ACTIONS]


@cache
def _boxoban_class() -> type:
    """A MiniHack Boxoban env that plays one given level (MiniHack's own reads a downloaded level set)."""
    box = modules()["boxohack"]
    from minihack import MiniHackNavigation

    class OneLevelBoxoban(box.BoxoHack):  # type: ignore[name-defined]  # a class of a module imported at run time
        """MiniHack-Boxoban-{Medium,Hard}-v0 dynamics and rewards on a level given as text."""

        def __init__(self, *args: Any, level: str, **kwargs: Any) -> None:
            kwargs["max_episode_steps"] = kwargs.pop("max_episode_steps", 400)
            kwargs["actions"] = kwargs.pop("actions", box.MOVE_ACTIONS)
            kwargs.pop("penalty_time", None)
            self._time_penalty = -0.001  # what MiniHack's Medium/Hard classes force
            self._flags = tuple(kwargs.pop("flags", []))
            self._levels = [level]  # one level: MiniHack's random.choice becomes deterministic
            self._reward_shaping_coefficient = 0.1
            MiniHackNavigation.__init__(self, *args, des_file=self.get_lvl_gen().get_des(), **kwargs)

    return OneLevelBoxoban


def unknown_action(action: str) -> ValueError:
    """The language wrapper's error for a string that maps to no action of the env."""
    return ValueError(f"Action {action!r} is not recognized or not supported for this environment")


@cache
def _language() -> Any:
    return modules()["language"].NLELanguageObsv()


def message_text(obs: dict[str, Any]) -> str:
    """The top-line message of a raw observation, as the language wrapper decodes it."""
    return str(_language().text_message(obs["tty_chars"]).decode("latin-1"))


def language_texts(obs: dict[str, Any]) -> dict[str, str]:
    """The NLE language wrapper's five texts for a raw observation (same C++ calls as the wrapper)."""
    lang = _language()
    glyphs, blstats = obs["glyphs"], obs["blstats"]
    return {
        "text_glyphs": lang.text_glyphs(glyphs, blstats).decode("latin-1"),
        "text_message": lang.text_message(obs["tty_chars"]).decode("latin-1"),
        "text_blstats": lang.text_blstats(blstats).decode("latin-1"),
        "text_inventory": lang.text_inventory(obs["inv_strs"], obs["inv_letters"]).decode("latin-1"),
        "text_cursor": lang.text_cursor(glyphs, blstats, obs["tty_cursor"]).decode("latin-1"),
    }


class Engine:
    """A BALROG NLE/MiniHack environment: seeded, stepped by text action, with AutoMore.

    It runs in this process with this process's clock; games use ``worker.ClockedEngine``, which runs it
    in a worker process whose clock is fixed (``clock.py``).

    ``env_id`` is the original id (``MiniHack-MazeWalk-9x9-v0``, ``NetHackChallenge-v0``); ``boxoban_level``
    is the level text (ten rows, Boxoban characters) for the Boxoban ids.
    """

    def __init__(self, env_id: str, boxoban_level: str | None = None, max_episode_steps: int | None = None) -> None:
        mods = modules()
        self.env_id = env_id
        self.is_nethack = env_id.startswith("NetHack")
        common = {"character": "@", "savedir": None, "save_ttyrec_every": 0}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.is_nethack:
                self.env = mods["gym"].make(
                    env_id, max_episode_steps=max_episode_steps or 100_000, no_progress_timeout=150, **common
                )
            else:
                kwargs = {
                    **common,
                    "observation_keys": MINIHACK_OBS_KEYS,
                    "max_episode_steps": max_episode_steps or 100,
                    "penalty_step": -0.01,
                    "penalty_time": 0.0,
                    "penalty_mode": "constant",
                    "autopickup": False,
                }
                if boxoban_level is not None:
                    self.env = _boxoban_class()(level=boxoban_level, **kwargs)
                else:
                    self.env = mods["gym"].make(env_id, **kwargs)
        self.nle = self.env.unwrapped
        table = action_table()
        actions = list(self.nle.actions)
        #: the first name of each of the env's actions, in the env's order
        self.action_names = [table[a][0] for a in actions]
        # every name or key string of an action in the env's full set (the wrapper's own mapping)
        self._index: dict[str, int] = {}
        for enum, strings in table.items():
            if enum in actions:
                for s in strings:
                    self._index[s] = actions.index(enum)
        self.more_index = self._index.get("more")
        self.obs: dict[str, Any] = {}
        self.done = False
        self.info: dict[str, Any] = {}

    def seed(self, seed: int) -> None:
        """Seed NetHack's two RNGs through the engine's own call (``reset`` alone does not seed NLE)."""
        core = seed & 0x7FFF_FFFF_FFFF_FFFF
        self.seed_raw(core, core ^ 0x5EED)

    def seed_raw(self, core: int, disp: int) -> None:
        """Seed NetHack's core and display RNGs with these exact values."""
        self.nle.seed(core, disp, reseed=False)

    def engine_steps(self) -> int:
        """Steps the NLE env has taken this episode (AutoMore's presses included)."""
        return int(self.nle._steps)

    def reset(self) -> dict[str, Any]:
        """Start the game (after ``seed``) and return the raw NLE observation dict."""
        self.obs = dict(self.env.reset())
        self.done = False
        self.info = {"end_status": 0}
        return self.obs

    def accepts(self, action: str) -> bool:
        """Whether the engine maps this string (a name or key of one of its actions)."""
        return action in self._index

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, str]:
        """Play one text action, then AutoMore; returns (obs, summed reward, done, message text).

        Raises ValueError for strings the engine does not map (as the language wrapper does).
        """
        if action not in self._index:
            raise unknown_action(action)
        obs, reward, done, info = self.env.step(self._index[action])
        total = float(reward)
        message = message_text(obs)
        # AutoMore: while the top line asks for --More-- and the game goes on, press MORE and append.
        while MORE in message and not done and self.more_index is not None:
            obs, reward, done, info = self.env.step(self.more_index)
            total += float(reward)
            message = message.replace(MORE, "\n") + message_text(obs)
        self.obs, self.done, self.info = dict(obs), bool(done), dict(info)
        return self.obs, total, self.done, message

    def message(self, obs: dict[str, Any]) -> str:
        """The top-line message as the language wrapper decodes it."""
        return message_text(obs)

    def language_obs(self, obs: dict[str, Any]) -> dict[str, str]:
        """The NLE language wrapper's five texts for a raw observation."""
        return language_texts(obs)

    def set_boxoban_level(self, level: str) -> None:
        """Play this Boxoban level from the next reset on (the engine was built for a Boxoban id)."""
        self.env._levels = [level]

    def end_status(self) -> int:
        """NLE's end status of the last step: -1 aborted, 0 running, 1 death, 2 task successful."""
        return int(self.info.get("end_status", 0))

    def ascended(self) -> bool:
        """Whether the game ended by ascension."""
        return bool(self.info.get("is_ascended", False))

    def close(self) -> None:
        """Release the NetHack process state."""
        with contextlib.suppress(Exception):
            self.env.close()
