"""The tiny suite's viewer pictures: a recognisable SVG per episode and per step."""

from playbench.core.records import EpisodeRecord, StepRecord
from playbench.core.suite import PictureHooks


def episode_picture(record: EpisodeRecord, steps: list[StepRecord]) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg"><title>tiny-episode {len(steps)} steps</title></svg>'


def step_picture(record: EpisodeRecord, step: StepRecord) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg"><title>tiny-step {step.step}</title></svg>'


PICTURES = PictureHooks(episode_picture=episode_picture, step_picture=step_picture)
