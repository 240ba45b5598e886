"""Running episodes: scheduling, the append-only run store, resume."""

from playbench.runner.plan import EpisodeJob, plan_jobs
from playbench.runner.runner import RunSettings, run_jobs
from playbench.runner.store import RunStore

__all__ = ["EpisodeJob", "RunSettings", "RunStore", "plan_jobs", "run_jobs"]
