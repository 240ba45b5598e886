"""Facts: the requests BALROG's own code sends for an episode of a playbench BALROG game.

BALROG's evaluator loop, agents, prompt builder and instruction prompts run unchanged (balrog-ai/BALROG
af7d1f1).

The playbench game supplies the observations (the engine side); everything the model is sent is built
by the original code. Output: one JSON file per env under the given directory.
"""
import json
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import gymnasium
import numpy as np

sys.path.insert(0, os.environ["BALROG_SCRATCH"])
import balrog.client as client
import balrog.evaluator as evaluator
from balrog.environments.env_wrapper import EnvWrapper

import playbench.suites  # noqa: F401
from playbench.agents.few_shot import load_demos
from playbench.core.registry import get_task

OUT = Path(sys.argv[1])
ONLY = sys.argv[2:] or None


class Cfg(dict):
    """A dict read by attribute, as BALROG reads its OmegaConf config."""

    def __getattr__(self, k):
        return self[k]

    def get(self, k, d=None):
        """The value of ``k``, else ``d``."""
        return dict.get(self, k, d)


def cfg(obj):
    """``obj`` with every nested dict made a ``Cfg``."""
    if isinstance(obj, dict):
        return Cfg({k: cfg(v) for k, v in obj.items()})
    return obj


class Anything:
    """An action space that holds every answer (a game without a list of legal actions)."""

    def __contains__(self, x):
        return True


class Base(gymnasium.Env):
    """Engine side: a playbench game seen through BALROG's env contract."""

    def __init__(self, game, actions=None):
        self.game, self.actions = game, actions
        self.default_action = game.default_action

    def _obs(self, text, info):
        return {"text": {"long_term_context": info["long_term_context"], "short_term_context": info["short_term_context"]},
                "image": None, "mission": getattr(getattr(self.game, "env", None), "mission", None)}

    @property
    def language_action_space(self):
        """The game's legal actions (``Anything`` when it has no list)."""
        legal = self.game.legal_actions()
        return Anything() if legal is None else list(legal)

    @property
    def max_steps(self):
        """The game's step limit."""
        return self.game.max_steps

    def reset(self, seed=None, options=None):
        """Reset the game with ``seed``; BALROG's observation dict."""
        text, info = self.game.reset(seed=seed)
        return self._obs(text, info), {}

    def step(self, action):
        """Play ``action``; BALROG's step tuple."""
        text, r, term, trunc, info = self.game.step(action)
        return self._obs(text, info), r, term, trunc, {}

    def get_stats(self):
        """No statistics (the facts compare requests only)."""
        return {}


ENVS = {
    "babyai": ("balrog/babyai/goto", "BabyAI-MixedTrainLocal-v0/goto", 11,
               ["turn left", "turn right", "go forward", "toggle", "turn left", "go forward"]),
    "crafter": ("balrog/crafter/default", "default", 11, ["Move West", "Do", "Move North", "Noop", "Do", "Move East"]),
    "textworld": ("balrog/textworld/coin_collector", "coin_collector", 11,
                  ["look", "go north", "go east", "take coin", "inventory", "go west"]),
    "babaisai": ("balrog/babaisai/goto_win", "env/goto_win", 11, ["up", "left", "down", "idle", "right", "up"]),
    "minihack": ("balrog/minihack/corridor-r3", "MiniHack-Corridor-R3-v0", 11,
                 ["north", "east", "south", "far east", "west", "search"]),
    "nle": ("balrog/nle/nethackchallenge", "NetHackChallenge-v0", 11, ["north", "search", "east", "esc", "west", "far west"]),
}
INVALID = "jump around"
STEPS = 5


def answers(strategy, valid):
    """Scripted answers: the second one names no action (BALROG's feedback follows)."""
    acts = [valid[0], INVALID, *valid[1:STEPS - 1]]
    if strategy in ("naive", "few_shot"):
        return acts
    if strategy == "cot":
        return [f"The map suggests a move.\nACTION: {a}" for a in acts]
    if strategy == "robust_naive":
        return [f"<|ACTION|>{a}<|END|>" for a in acts]
    return [f"Thinking it over.\n<|ACTION|>{a}<|END|>" for a in acts]


def minihack_actions(env_id):
    """The action names of MiniHack's ``env_id`` as BALROG lists them."""
    import gym
    import minihack  # noqa: F401
    env = gym.make(env_id)
    acts = env.actions
    env.close()
    return acts


def demo_run(task_id, workdir, extra):
    """A playbench run of the random agent: the few-shot demonstration (the test makes the same one)."""
    cmd = [sys.executable, "-m", "playbench.cli.main", "eval", task_id, "--agent", "random", "--episodes", "1",
           "--seed", "99", "-T", "max_steps=3", *[a for k, v in extra.items() for a in ("-T", f"{k}={v}")], "--log-dir", str(workdir), "--quiet"]
    subprocess.run(cmd, check=True, capture_output=True)
    (demo,) = load_demos(str(workdir))[task_id]
    return demo


def write_npz(demo, path):
    """BALROG's demo format: first transition is the reset observation (its action unused)."""
    obs = [s[0] for s in demo.steps]
    acts = ["none"] + [s[1] for s in demo.steps[:-1]]
    n = len(obs)
    done = np.zeros(n, dtype=bool)
    done[-1] = True
    text = np.empty(n, dtype=object)
    for i, o in enumerate(obs):
        text[i] = {"long_term_context": o, "short_term_context": ""}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, action=np.array(acts, dtype=object), reward=np.zeros(n), terminated=done,
             truncated=np.zeros(n, dtype=bool), text=text)


def run(env, mode):
    """The requests BALROG sends for one episode of ``env`` in ``mode``."""
    task_id, orig_task, seed, valid = ENVS[env]
    task = get_task(task_id)
    extra = {"games": "1", "game_set": "legacy"} if env == "textworld" else {}  # the facts were made on the legacy set
    tparams = {"max_steps": str(STEPS), **extra}
    if mode == "compat":
        tparams["compat"] = "true"
    params = task.params(tparams)
    actions = minihack_actions(orig_task) if env == "minihack" else None
    work = Path(tempfile.mkdtemp())
    demo = demo_run(task_id, work / "demos", extra)
    # Baba Is AI draws demos from another task (but counts the files of its own): the same demo in both
    for demo_task in {orig_task, "other" if env == "babaisai" else orig_task}:
        write_npz(demo, work / "records" / env / demo_task / "20241201T000000-seed1-rew0.00-len3.npz")
    import balrog.environments.textworld as twmod
    twmod.global_textworld_context = lambda **kw: types.SimpleNamespace(count={orig_task: -1})
    result = {"task": task_id, "original_task": orig_task, "seed": seed, "task_params": tparams,
              "demo": {"agent": "random", "seed": 99, "task_params": {"max_steps": "3", **extra},
                       "steps": [list(s) for s in demo.steps]},
              "strategies": {}}
    for strategy in ("naive", "cot", "robust_naive", "robust_cot", "few_shot"):
        config = cfg({
            "agent": {"type": strategy, "max_text_history": 16, "max_image_history": 0, "max_cot_history": 1,
                      "remember_cot": True, "cache_icl": False, "max_icl_history": 1000},
            "client": {"client_name": "scripted"},
            "eval": {"num_episodes": {env: 1}, "num_workers": 1, "max_steps_per_episode": STEPS,
                     "feedback_on_invalid_action": True, "save_images": False, "icl_episodes": 1,
                     "icl_dataset": "records"},
            "envs": {"env_kwargs": {"seed": seed}, "textworld_kwargs": {}},
            "tasks": {f"{env}_tasks": [orig_task, "other"] if env == "babaisai" else [orig_task],
                      "textworld_tasks": [orig_task]},
        })
        game = task.make_game(params, 0)
        evaluator.make_env = lambda env_name, t, c, render_mode=None, game=game: EnvWrapper(Base(game, actions), env_name, t)
        client.SCRIPT[:] = answers(strategy, valid)
        client.REQUESTS.clear()
        agent = __import__("balrog.agents", fromlist=["AgentFactory"]).AgentFactory(config).create_agent()
        ev = evaluator.Evaluator(env, config, original_cwd=str(work), output_dir=str(work / "out"))
        log = ev.run_episode(orig_task, agent)
        game.close()
        name = strategy.replace("_", "-")
        result["strategies"][name] = {"answers": answers(strategy, valid), "requests": list(client.REQUESTS),
                                      "failed_candidates": log["failed_candidates"]}
    return result


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for env in ONLY or ENVS:
        data = {"source": "balrog-ai/BALROG af7d1f1: evaluator.run_episode, agents, HistoryPromptBuilder and the "
                          "instruction prompts run unchanged over playbench's game; see tests/balrog/data/README.md",
                "modes": {mode: run(env, mode) for mode in ("default", "compat")}}
        (OUT / f"requests_{env}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(env, {m: {s: len(v["requests"]) for s, v in d["strategies"].items()} for m, d in data["modes"].items()})
