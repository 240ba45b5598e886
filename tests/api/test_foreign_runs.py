"""Runs from elsewhere (issue 27, keys and hosts): a run's files never decide where the user's key goes,
keys never reach a run folder however they are passed, every ``eval`` names where its requests go, and
SIGTERM / SIGHUP stop a run the way Ctrl-C does. Real ``playbench`` processes against a loopback server
that logs every credential header it receives."""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import playbench
from helpers import PLAYBENCH, only_run_dir, requests_with_key, run_bytes, run_cli, wait_for_episodes
from playbench.core.errors import PlaybenchError
from playbench.log import read_run
from playbench.models.factory import PROVIDERS as PROVIDERS_TABLE
from playbench.models.fakeserver import FakeServer
from playbench.models.redact import credential_name, mask_url, redact

CANARY = "sk-canary-7f3e1d9b5a"
#: no key, no server and no cluster from the environment of whoever runs the tests
CLEAN = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "ANTHROPIC_API_KEY": "", "ANTHROPIC_BASE_URL": "",
         "RAY_ADDRESS": ""}
RUN = ["smartplay/hanoi-3", "-T", "max_steps=3", "--retry-backoff", "0", "--quiet"]
#: provider -> (what its URL needs after the server's address, its key variable, its URL variable)
PROVIDERS = {"openai": ("/v1", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
             "anthropic": ("", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}


def _lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines() if x.strip()]


def _their_run(tmp_path: Path, provider: str, server: FakeServer) -> Path:
    """A colleague's run against ``server`` (down: every episode an infra-error), copied into our folder."""
    suffix = PROVIDERS[provider][0]
    server.down = True
    made = run_cli("eval", *RUN, "--model", f"{provider}/fake", "--episodes", "2", "--max-retries", "0",
                   "--base-url", server.url + suffix, "--log-dir", str(tmp_path / "theirs"), env=CLEAN)
    assert made.returncode == 1, made.stderr
    server.down = False
    ours = tmp_path / "ours" / "run"
    shutil.copytree(only_run_dir(tmp_path / "theirs"), ours)
    return ours


# -- a run's files never decide where a key goes ------------------------------------------------------


@pytest.mark.parametrize(("provider", "confirm"), [("openai", "flag"), ("anthropic", "flag"), ("openai", "env")])
def test_a_copied_run_sends_nothing_to_its_server_until_the_user_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str, confirm: str) -> None:
    suffix, key_var, url_var = PROVIDERS[provider]
    with FakeServer() as server:
        run = _their_run(tmp_path, provider, server)
        before, meta = server.stats.requests, (run / "run.json").read_bytes()
        env = {**CLEAN, key_var: CANARY}
        refused = run_cli("eval", "--resume", str(run), "--max-connections", "2", env=env)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        url = server.url + suffix
        assert line.startswith("error: ") and f"--base-url {url} again" in line, line
        assert server.stats.requests == before and requests_with_key(server, CANARY) == 0  # nothing was sent
        assert (run / "run.json").read_bytes() == meta and CANARY not in refused.stderr
        # the library refuses the same way
        with monkeypatch.context() as patched:
            for name, value in env.items():
                patched.setenv(name, value)
            with pytest.raises(PlaybenchError, match="a server you have not named"):
                playbench.eval(resume=run)
        assert server.stats.requests == before
        # named again (on the command line, or by the provider's own URL variable), it proceeds
        if confirm == "flag":
            done = run_cli("eval", "--resume", str(run), "--base-url", url, env=env)
        else:
            done = run_cli("eval", "--resume", str(run), env={**env, url_var: url})
        assert done.returncode == 0, done.stderr
        assert f"model {provider}/fake: requests go to {url} with ${key_var}" in done.stderr
        assert requests_with_key(server, CANARY) == server.stats.requests - before > 0
    assert {r.status for r in read_run(run).latest_episodes().values()} == {"ok"}
    assert CANARY.encode() not in run_bytes(run)


def test_the_providers_default_server_needs_no_confirmation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer() as server:
        run = _their_run(tmp_path, "openai", server)
        before = server.stats.requests
        # the loopback server stands in for the provider's own (api.openai.com is never called by tests)
        monkeypatch.setitem(PROVIDERS_TABLE, "openai", dataclasses.replace(PROVIDERS_TABLE["openai"], default_url=server.url + "/v1/"))
        for name, value in {**CLEAN, "OPENAI_API_KEY": CANARY}.items():
            monkeypatch.setenv(name, value)
        done = playbench.eval(resume=run)
        assert done.complete and requests_with_key(server, CANARY) == server.stats.requests - before > 0


def test_a_recorded_ray_cluster_is_refused_until_named_again(tmp_path: Path) -> None:
    first = playbench.eval("smartplay/hanoi-3", episodes=1, log_dir=tmp_path)
    meta = json.loads((first.path / "run.json").read_text())
    meta["settings"].update(executor="ray", ray_address="192.0.2.7:6379")  # a documentation-only address
    (first.path / "run.json").write_text(json.dumps(meta))
    res = run_cli("eval", "--resume", str(first.path), env=CLEAN)
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert "Ray cluster at 192.0.2.7:6379" in line and "--ray-address 192.0.2.7:6379 again" in line, line
    with pytest.raises(PlaybenchError, match="a cluster you have not named"):
        playbench.eval(resume=first.path)
    # --executor local keeps the run on this machine: nothing goes to the cluster, nothing to confirm
    local = run_cli("eval", "--resume", str(first.path), "--executor", "local", "--quiet", env=CLEAN)
    assert local.returncode == 0, local.stderr


# -- keys never reach the run folder --------------------------------------------------------------------


@pytest.mark.parametrize("setting", [f"api_key={CANARY}", f"API-Key={CANARY}", f"token={CANARY}",
                                     f'extra_headers={{"Authorization": "Bearer {CANARY}"}}',
                                     f'extra_headers={{"x-api-key": "{CANARY}"}}'])
def test_keys_given_as_model_settings_are_refused_before_a_run_exists(tmp_path: Path, setting: str) -> None:
    with FakeServer() as server:
        res = run_cli("eval", *RUN, "--model", "openai/fake", "-M", setting, "--base-url", server.url + "/v1",
                      "--log-dir", str(tmp_path / "runs"), env=CLEAN)
        assert server.stats.requests == 0
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert "keys come from the environment ($OPENAI_API_KEY)" in line and CANARY not in line, line
    assert not (tmp_path / "runs").exists()


def test_a_key_in_the_base_url_is_used_and_never_recorded(tmp_path: Path) -> None:
    with FakeServer(record=True) as server:
        url = f"{server.url}/v1?api-version=2024-06&api-key={CANARY}"
        res = run_cli("eval", *RUN, "--model", "openai/fake", "--episodes", "2", "--base-url", url,
                      "--log-dir", str(tmp_path), env=CLEAN)
        assert res.returncode == 0, res.stderr
        paths = {path for path, _ in server.received}
    assert paths == {f"/v1/chat/completions?api-version=2024-06&api-key={CANARY}"}  # the real URL is used
    shown = f"{server.url}/v1?api-version=2024-06&api-key=***"
    assert f"model openai/fake: requests go to {shown} with the key in the URL" in res.stderr, res.stderr
    assert CANARY not in res.stdout + res.stderr
    run = only_run_dir(tmp_path)
    assert json.loads((run / "run.json").read_text())["settings"]["base_url"] == shown
    assert CANARY.encode() not in run_bytes(run)
    # a resume with the real URL again records the masked one in its resume event too
    again = run_cli("eval", "--resume", str(run), "--base-url", url.replace("2024-06", "2024-10"), "--quiet",
                    env=CLEAN)
    assert again.returncode == 0, again.stderr
    assert CANARY.encode() not in run_bytes(run) and CANARY not in again.stderr


def test_a_key_in_the_providers_url_variable_is_used_again_on_resume(tmp_path: Path) -> None:
    with FakeServer(down=True, record=True) as server:
        env = {**CLEAN, "OPENAI_BASE_URL": f"{server.url}/v1?api-key={CANARY}"}
        first = run_cli("eval", *RUN, "--model", "openai/fake", "--episodes", "2", "--max-retries", "0",
                        "--log-dir", str(tmp_path), env=env)
        assert first.returncode == 1, first.stderr
        run = only_run_dir(tmp_path)
        assert json.loads((run / "run.json").read_text())["settings"]["base_url"].endswith("?api-key=***")
        server.down = False
        again = run_cli("eval", "--resume", str(run), "--quiet", env=env)  # the variable names it: no question
        assert again.returncode == 0, again.stderr
        paths = [path for path, _ in server.received]
    assert len(paths) > 2 and set(paths) == {f"/v1/chat/completions?api-key={CANARY}"}  # the real key, not ***
    assert CANARY.encode() not in run_bytes(run)


def test_a_mock_model_says_it_uses_no_server(tmp_path: Path) -> None:
    res = run_cli("eval", *RUN, "--model", "mock/demo", "--episodes", "1", "--log-dir", str(tmp_path), env=CLEAN)
    assert res.returncode == 0, res.stderr
    assert res.stderr.splitlines()[0] == "model mock/demo: answered in this process (no server, no key)"


@pytest.mark.parametrize("name", ["api_key", "API-KEY", "key", "token", "access_token", "Authorization",
                                  "x-api-key", "x-goog-api-key", "password", "client_secret", "Cookie"])
def test_credential_names(name: str) -> None:
    assert credential_name(name)


@pytest.mark.parametrize("name", ["max_tokens", "stop_token_ids", "prompt_cache_key", "temperature", "top_k",
                                  "keep_alive", "extra_headers"])
def test_setting_names_that_are_not_credentials(name: str) -> None:
    assert not credential_name(name)


def test_urls_are_shown_without_their_credentials() -> None:
    assert mask_url("https://me:pw@h:8443/v1?api-key=S&api-version=2&sig=Z&Token=T") == \
        "https://h:8443/v1?api-key=***&api-version=2&sig=***&Token=***"
    assert mask_url("http://a/v1?key=1,http://b/v1") == "http://a/v1?key=***,http://b/v1"
    assert redact("POST https://h/v1/chat/completions?api-version=2&api-key=S3cr3t failed") == \
        "POST https://h/v1/chat/completions?api-version=2&api-key=*** failed"


# -- SIGTERM and SIGHUP stop a run like Ctrl-C ---------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_print_the_resume_line_and_the_run_resumes(tmp_path: Path, signum: int) -> None:
    with FakeServer(latency=0.2) as server:
        args = ["eval", *RUN, "--model", "openai/fake", "--episodes", "8", "--max-connections", "2",
                "--base-url", server.url, "--log-dir", str(tmp_path)]
        # The signal's default action in the child, as a terminal gives it: under ``nohup`` SIGHUP is inherited
        # ignored, and playbench rightly leaves an ignored signal ignored.
        proc = subprocess.Popen([*PLAYBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, **CLEAN}, preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL))
        run = wait_for_episodes(tmp_path, 1)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 128 + signum, err
        assert f"interrupted: finished episodes are saved in {run}; continue with: playbench eval --resume {run}" \
            in err, err
        recorded = _lines(run)
        assert 1 <= len(recorded) < 8 and all(r["status"] == "ok" for r in recorded)
        res = run_cli("eval", "--resume", str(run), "--base-url", server.url, "--quiet", env=CLEAN)
        assert res.returncode == 0, res.stderr
    final = _lines(run)
    assert len(final) == 8 and len({r["index"] for r in final}) == 8


LIBRARY_RUN = textwrap.dedent("""
    import os, signal, sys, threading, time
    from pathlib import Path
    import playbench
    from playbench.api.result import RunInterrupted

    def send_when_started():
        while not list(Path(sys.argv[2]).glob("*/episodes.jsonl")) or \\
                not next(Path(sys.argv[2]).glob("*/episodes.jsonl")).read_bytes():
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=send_when_started, daemon=True).start()
    try:
        playbench.eval("smartplay/hanoi-3", model="openai/fake", base_url=sys.argv[1], episodes=8,
                       max_connections=2, log_dir=sys.argv[2], task_params={"max_steps": 3})
    except RunInterrupted as stop:
        print("interrupted", stop.signal == signal.SIGTERM, signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
""")


def test_the_library_treats_sigterm_as_ctrl_c_and_restores_the_handler(tmp_path: Path) -> None:
    with FakeServer(latency=0.2) as server:
        res = subprocess.run([sys.executable, "-c", LIBRARY_RUN, server.url, str(tmp_path)], capture_output=True,
                             text=True, env={**os.environ, **CLEAN}, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["interrupted", "True", "True"], res.stdout + res.stderr
    assert all(r["status"] == "ok" for r in _lines(only_run_dir(tmp_path)))
