"""Registers the SmartPlay tasks: bandits, rock-paper-scissors and Tower of Hanoi."""

from playbench.core.registry import register_task
from playbench.core.task import Task
from playbench.suites.smartplay.bandit import BanditGame
from playbench.suites.smartplay.base import SmartPlayParams
from playbench.suites.smartplay.hanoi import HanoiGame
from playbench.suites.smartplay.rps import RPSGame


def _trials(default: int):
    return lambda params: params.trials or default


_BANDIT_IDS = {
    "deterministic": "BanditTwoArmedDeterministicFixed",
    "highhigh": "BanditTwoArmedHighHighFixed",
    "highlow": "BanditTwoArmedHighLowFixed",
    "lowlow": "BanditTwoArmedLowLowFixed",
}
for _variant, _orig in _BANDIT_IDS.items():
    register_task(Task(
        id=f"smartplay/bandit-{_variant}",
        description=f"SmartPlay two-armed bandit ({_variant}): 50 pulls, score = pulls of the best arm",
        make_game=lambda params, index, v=_variant: BanditGame(params, v),
        default_episodes=_trials(20), params_model=SmartPlayParams, aliases=(f"{_orig}-v0", _orig),
        reference_agents=("random", "oracle"),
    ))

for _variant, _orig in {"basic": "RockPaperScissorBasic", "different-score": "RockPaperScissorDifferentScore"}.items():
    register_task(Task(
        id=f"smartplay/rps-{_variant}",
        description=f"SmartPlay rock-paper-scissors ({_variant}) against a biased opponent, 50 rounds",
        make_game=lambda params, index, v=_variant: RPSGame(params, v),
        default_episodes=_trials(20), params_model=SmartPlayParams, aliases=(f"{_orig}-v0", _orig),
        reference_agents=("random", "oracle"),
    ))

for _disks in (3, 4):
    register_task(Task(
        id=f"smartplay/hanoi-{_disks}",
        description=f"SmartPlay Tower of Hanoi with {_disks} disks, 30 steps, score = disks on rod C",
        make_game=lambda params, index, d=_disks: HanoiGame(params, d),
        default_episodes=_trials(10), params_model=SmartPlayParams,
        aliases=(f"Hanoi{_disks}Disk-v0", f"Hanoi{_disks}Disk"),
        reference_agents=("random", "oracle"),
    ))
from playbench.suites.smartplay import tasks_more  # noqa: F401,E402
from playbench.suites.smartplay.crafter import tasks as crafter_tasks  # noqa: F401,E402
