"""A provider alias is one row of ``models/providers_table.py``, and a service without a row is reached as
``openai-api/<service>/<model>`` with no code. Against the loopback fake server, with canary keys: the alias
that docs/adding-a-task.md shows (added to a copy of the package, as the page says) plays, its key is
scrubbed from the run folder and from echoed errors, and resume confirmation knows its URL variable."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import playbench
from helpers import only_run_dir, requests_with_key, run_bytes, run_cli
from playbench.core.errors import PlaybenchError
from playbench.log import read_run
from playbench.models.fakeserver import FakeServer
from playbench.models.providers_table import PROVIDERS

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "adding-a-task.md"
CANARY = "sk-canary-rows-5d1f08a2c7"
RUN = ["smartplay/hanoi-3", "-T", "max_steps=3", "--retry-backoff", "0", "--max-retries", "0", "--quiet"]
#: no key, no server and no cluster from the environment of whoever runs the tests
CLEAN = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "GROQ_API_KEY": "", "GROQ_BASE_URL": "",
         "TOGETHER_API_KEY": "", "TOGETHER_BASE_URL": "", "RAY_ADDRESS": ""}


def _doc_row() -> str:
    """The provider row that follows ``<!-- row: provider -->`` in docs/adding-a-task.md."""
    found = re.search(r"<!-- row: provider -->\n```python\n(.*?)\n```", DOC.read_text(), re.S)
    assert found, f"{DOC.name} has no provider row example"
    return found.group(1)


@pytest.fixture(scope="module")
def with_alias(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A copy of the package whose provider table ends with the page's example row, and an environment
    that imports it (no other file is changed)."""
    row = _doc_row()
    name = re.match(r'\s*"([a-z0-9-]+)": ProviderRow\(', row)
    assert name and name.group(1) == "groq" and name.group(1) not in PROVIDERS, row
    root = tmp_path_factory.mktemp("alias")
    shutil.copytree(REPO / "src" / "playbench", root / "playbench", ignore=shutil.ignore_patterns("__pycache__"))
    table = root / "playbench" / "models" / "providers_table.py"
    text = table.read_text()
    start = text.index("\nPROVIDERS: dict[")
    end = text.index("\n}\n", start)  # the table's closing brace
    table.write_text(text[:end] + "\n" + row + text[end:])
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    return {**CLEAN, "PYTHONPATH": path}


def test_the_alias_row_is_all_the_key_scrubber_needs(with_alias: dict[str, str]) -> None:
    code = ("import os, playbench.models.redact as r\n"
            f"os.environ['GROQ_API_KEY'] = {CANARY!r}\n"
            f"print('GROQ_API_KEY' in r.KEY_VARIABLES, r.redact('HTTP 400: the key {CANARY} is unknown'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **with_alias})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True HTTP 400: the key *** is unknown"  # no model made: the row alone


def test_the_alias_plays_end_to_end_and_its_key_stays_out_of_the_run(with_alias: dict[str, str],
                                                                    tmp_path: Path) -> None:
    # every answer echoes the key it got, bare, in its text and its reasoning
    with FakeServer(sequence=["echo-key"] * 50, record=True) as server:
        env = {**with_alias, "GROQ_BASE_URL": server.url + "/v1", "GROQ_API_KEY": CANARY}
        done = run_cli("eval", *RUN, "--model", "groq/llama-fake", "--episodes", "1", "--log-dir", str(tmp_path),
                       env=env)
        assert done.returncode == 0, done.stderr
        assert f"model groq/llama-fake: requests go to {server.url}/v1 with $GROQ_API_KEY" in done.stderr
        assert requests_with_key(server, CANARY) == server.stats.requests > 0 and server.stats.faults["echo-key"] > 0
        assert {body["model"] for _, body in server.received} == {"llama-fake"}
    run = only_run_dir(tmp_path)
    assert {r.status for r in read_run(run).latest_episodes().values()} == {"ok"}
    assert CANARY.encode() not in run_bytes(run) and CANARY not in done.stdout + done.stderr
    assert b"(you sent ***)" in run_bytes(run)  # the echo reached the records, scrubbed


def test_the_alias_key_is_scrubbed_from_an_echoed_error(with_alias: dict[str, str], tmp_path: Path) -> None:
    with FakeServer(reject_auth=True) as server:  # answers 401 with the credentials it got
        env = {**with_alias, "GROQ_BASE_URL": server.url + "/v1", "GROQ_API_KEY": CANARY}
        done = run_cli("eval", *RUN, "--model", "groq/llama-fake", "--episodes", "1", "--log-dir", str(tmp_path),
                       env=env)
        assert requests_with_key(server, CANARY) > 0
    assert done.returncode != 0 and "HTTP 401" in done.stderr, done.stderr
    assert CANARY not in done.stdout + done.stderr
    assert CANARY.encode() not in run_bytes(only_run_dir(tmp_path))


def test_resume_confirmation_knows_the_alias_url_variable(with_alias: dict[str, str], tmp_path: Path) -> None:
    with FakeServer() as server:
        url = server.url + "/v1"
        server.down = True  # their run: every episode an infra-error, to be played again on resume
        made = run_cli("eval", *RUN, "--model", "groq/llama-fake", "--episodes", "2", "--base-url", url,
                       "--log-dir", str(tmp_path / "theirs"), env=with_alias)
        assert made.returncode == 1, made.stderr
        server.down = False
        run = tmp_path / "ours"
        shutil.copytree(only_run_dir(tmp_path / "theirs"), run)
        before, env = server.stats.requests, {**with_alias, "GROQ_API_KEY": CANARY}
        refused = run_cli("eval", "--resume", str(run), env=env)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert "a server you have not named" in line and f"--base-url {url} again" in line, line
        assert server.stats.requests == before
        done = run_cli("eval", "--resume", str(run), "--quiet", env={**env, "GROQ_BASE_URL": url})
        assert done.returncode == 0, done.stderr
        assert requests_with_key(server, CANARY) == server.stats.requests - before > 0
    assert CANARY.encode() not in run_bytes(run)


# -- openai-api/<service>/<model>: no row, no code -------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name, value in CLEAN.items():
        monkeypatch.setenv(name, value)
    return monkeypatch


def _eval(tmp_path: Path, **opts: Any) -> Any:
    return playbench.eval("smartplay/hanoi-3", task_params={"max_steps": 3}, model="openai-api/together/meta-llama/fake",
                          episodes=1, retry_backoff=0, log_dir=tmp_path, **opts)


def test_the_generic_form_reads_its_services_variables(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert "together" not in PROVIDERS
    with FakeServer(sequence=["echo-key"] * 50, record=True) as server:
        clean_env.setenv("TOGETHER_BASE_URL", server.url + "/v1")
        clean_env.setenv("TOGETHER_API_KEY", CANARY)
        done = _eval(tmp_path)
        assert done.complete and requests_with_key(server, CANARY) == server.stats.requests > 0
        assert {body["model"] for _, body in server.received} == {"meta-llama/fake"}  # the service is not sent
    assert CANARY.encode() not in run_bytes(done.path) and b"(you sent ***)" in run_bytes(done.path)
    assert json.loads((done.path / "run.json").read_text())["config"]["model"] == "openai-api/together/meta-llama/fake"


def test_the_generic_form_refuses_without_its_url_variable(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.setenv("TOGETHER_API_KEY", CANARY)
    res = run_cli("eval", *RUN, "--model", "openai-api/together/meta-llama/fake", "--log-dir", str(tmp_path),
                  env=CLEAN | {"TOGETHER_API_KEY": CANARY})
    assert res.returncode == 2
    (line,) = res.stderr.strip().splitlines()
    assert line == "error: openai-api/together/meta-llama/fake needs its server's URL in $TOGETHER_BASE_URL " \
                   "(or --base-url)", line
    with pytest.raises(PlaybenchError, match=r"\$TOGETHER_BASE_URL"):
        _eval(tmp_path)
    with pytest.raises(PlaybenchError, match="expects a service name"):
        playbench.eval("smartplay/hanoi-3", model="openai-api/together", log_dir=tmp_path)


def test_resume_confirmation_knows_the_generic_url_variable(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with FakeServer() as server:
        url = server.url + "/v1"
        clean_env.setenv("TOGETHER_BASE_URL", url)
        clean_env.setenv("TOGETHER_API_KEY", CANARY)
        server.down = True
        first = _eval(tmp_path / "theirs", max_retries=0)
        assert not first.complete
        server.down = False
        run = tmp_path / "ours"
        shutil.copytree(first.path, run)
        before, seen = server.stats.requests, requests_with_key(server, CANARY)
        clean_env.setenv("TOGETHER_BASE_URL", "")
        with pytest.raises(PlaybenchError, match=f"a server you have not named.*--base-url {re.escape(url)} again"):
            playbench.eval(resume=run)
        assert server.stats.requests == before
        clean_env.setenv("TOGETHER_BASE_URL", url)
        done = playbench.eval(resume=run)
        assert done.complete and requests_with_key(server, CANARY) - seen == server.stats.requests - before > 0
    assert CANARY.encode() not in run_bytes(run)



def test_a_generic_services_key_variable_is_watched_once_its_model_is_made(clean_env: pytest.MonkeyPatch) -> None:
    from playbench.models import ModelSettings, create_model
    from playbench.models.redact import redact

    clean_env.setenv("ACME_LABS_BASE_URL", "http://127.0.0.1:9/v1")  # never called: the model is only made
    clean_env.setenv("ACME_LABS_API_KEY", "sk-acme-first-1")
    assert redact("sk-acme-second-2") == "sk-acme-second-2"
    model = create_model("openai-api/acme-labs/m1", {}, ModelSettings())
    assert model.provider.base_url == "http://127.0.0.1:9/v1" and model.provider.model == "m1"
    clean_env.setenv("ACME_LABS_API_KEY", "sk-acme-second-2")  # a key changed later is hidden as well
    assert redact("keys sk-acme-first-1 sk-acme-second-2") == "keys *** ***"
