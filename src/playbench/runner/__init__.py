"""Running episodes: scheduling and the worker pool. Records are written through ``playbench.log``."""

from playbench.runner.plan import EpisodeJob, plan_jobs
from playbench.runner.runner import PoolSettings, run_jobs

__all__ = ["EpisodeJob", "PoolSettings", "plan_jobs", "run_jobs"]
