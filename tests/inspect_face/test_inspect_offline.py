"""Offline as the page's examples are written: loading playbench's tasks puts tiktoken's ``o200k_base`` (from
bpe-openai) in tiktoken's default cache, so Inspect's mockllm estimates tokens with no download; a cache the
user named is left alone."""

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

INSPECT = Path(sys.executable).with_name("inspect")
KEY = hashlib.sha1(b"https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken").hexdigest()
SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def _bare(env: dict[str, str], tmp: Path) -> dict[str, str]:
    """``env`` with no tiktoken cache named and an empty temporary folder (where tiktoken's default cache is)."""
    tmp.mkdir()
    return {**{k: v for k, v in env.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")},
            "TMPDIR": str(tmp)}


def test_the_pages_first_example_runs_offline_with_no_cache_primed(inspect_env: dict[str, str],
                                                                   tmp_path: Path) -> None:
    env = _bare(inspect_env, tmp_path / "tmp")
    done = subprocess.run([str(INSPECT), "eval", "playbench/mango", "-T", "task=mango/df", "-T", "episodes=1",
                           "--model", "mockllm/model", "--log-dir", str(tmp_path / "logs")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    [info] = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info.name)
    assert log.status == "success" and log.samples is not None
    [sample] = log.samples
    assert sample.error is None and sample.scores  # mockllm's first request did not fail
    assert sample.model_usage["mockllm/model"].input_tokens > 0  # tiktoken counted them
    cached = tmp_path / "tmp" / "data-gym-cache" / KEY
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == SHA256
    # (the `offline` fixture then asserts no network access was tried, in this process or Inspect's)


@pytest.mark.parametrize("named", ["TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR", "empty"])
def test_a_cache_the_user_named_is_left_alone(inspect_env: dict[str, str], tmp_path: Path, named: str) -> None:
    env = _bare(inspect_env, tmp_path / "tmp")
    mine = tmp_path / "mine"
    mine.mkdir()
    if named == "empty":
        env["TIKTOKEN_CACHE_DIR"] = ""  # tiktoken's "no caching"
    else:
        env[named] = str(mine)
    done = subprocess.run([sys.executable, "-c", "import playbench.inspect.tasks"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list(mine.iterdir()) == [] and list((tmp_path / "tmp").iterdir()) == []
