"""Running episodes: scheduling, the worker pool, resume rules. Records are written through ``playbench.log``."""

from playbench.runner.plan import EpisodeJob, plan_jobs
from playbench.runner.runner import RunSettings, run_jobs

__all__ = ["EpisodeJob", "RunSettings", "plan_jobs", "run_jobs"]
