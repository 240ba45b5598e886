"""``-M`` settings that would carry a key into run.json, as a shell leaves them: refused by a real ``playbench eval``
process before a request is sent or a run folder exists; header and body settings must be a mapping."""

from pathlib import Path

import pytest

from helpers import run_cli
from playbench.core.errors import PlaybenchError
from playbench.models.factory import create_model
from playbench.models.fakeserver import FakeServer
from playbench.models.redact import credential_setting, key_like

CANARY = "sk-proj-Canary0123456789abcdefXYZ"
CLEAN = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
RUN = ["smartplay/hanoi-3", "-T", "max_steps=2", "--episodes", "1", "--quiet"]


def _eval(tmp_path: Path, setting: str) -> tuple[str, int]:
    with FakeServer() as server:
        res = run_cli("eval", *RUN, "--model", "openai/fake", "-M", setting, "--base-url", server.url + "/v1",
                      "--log-dir", str(tmp_path / "runs"), env=CLEAN)
        requests = server.stats.requests
    assert res.returncode == 2 and requests == 0, res.stderr
    assert not (tmp_path / "runs").exists()  # nothing written, not even an empty folder
    (line,) = res.stderr.strip().splitlines()
    return line, res.returncode


@pytest.mark.parametrize("setting", [
    f"extra_headers={{Authorization:Bearer {CANARY}}}",  # '{"Authorization": "Bearer …"}' after the shell
    f"extra_headers={{Authorization: Bearer {CANARY}}}",
    f"extra_body={{api_key:{CANARY}}}",
    f"metadata={{note:{CANARY}}}",  # a provider key's shape in any string
    f"stop={CANARY}",  # a typed setting's text too
    "user=https://me:pw0rd@host/x",
    "callback=https://h/hook?access_token=abcdef123",
])
def test_key_like_values_in_any_string_setting_are_refused(tmp_path: Path, setting: str) -> None:
    line, _ = _eval(tmp_path, setting)
    assert "looks like a credential" in line and "keys come from the environment ($OPENAI_API_KEY)" in line, line
    assert CANARY not in line and "pw0rd" not in line and "abcdef123" not in line


@pytest.mark.parametrize("setting", ["extra_headers=X-Trace:1", "extra_headers=[1, 2]", "extra_body=7",
                                     "headers=null", "extra_body={x:1}"])
def test_header_and_body_settings_must_be_a_mapping(tmp_path: Path, setting: str) -> None:
    line, _ = _eval(tmp_path, setting)
    name = setting.partition("=")[0]
    assert f"-M {name} must be a JSON object" in line, line


def test_header_and_body_mappings_without_keys_are_accepted() -> None:
    model = create_model("mock/x", {"extra_headers": '{"X-Trace": "1"}', "extra_body": '{"top_a": 0.1}'})
    assert model.config.extras() == {"extra_body": {"top_a": 0.1}, "extra_headers": {"X-Trace": "1"}}
    with pytest.raises(PlaybenchError, match="-M extra_body must be a JSON object"):
        create_model("mock/x", {"extra_body": "top_a"})


@pytest.mark.parametrize("text", ["Answer:", "max_tokens: 5", "https://example.com/v1", "sk-short", "\n\nObservation",
                                  "basically fine", "keystone", "the token budget"])
def test_ordinary_texts_are_not_key_like(text: str) -> None:
    assert not key_like(text)
    assert credential_setting({"stop": text}) is None
