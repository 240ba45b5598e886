"""SmartPlay's Crafter two-stage requests equal the original's (``data/twostage_crafter.json``, facts).

Both stages of every step are compared: the system lines, the manual (SPRING's context as SmartPlay edits
it, with no action list appended), the history, the observation and the questions.
"""

import asyncio
import json
from pathlib import Path

import pytest

from playbench.agents.registry import get_agent
from playbench.core.registry import get_task
from playbench.models import create_model
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode
from playbench.suites.balrog.protocol import fingerprint

DATA = json.loads((Path(__file__).parent / "data" / "twostage_crafter.json").read_text())


def _expected(mode: str) -> list[list[dict]]:
    texts = DATA["texts"]
    return [[{"role": r, "content": texts[i]} for r, i in req] for req in DATA["modes"][mode]["requests"]]


def _requests(mode: str, tmp_path: Path, agent_params: dict) -> list[list[dict]]:
    """Every request playbench's two-stage agent sends for the recorded episode."""
    case = DATA["modes"][mode]
    script = tmp_path / "answers.json"
    script.write_text(json.dumps(case["answers"]))
    model = create_model("mock/facts", {"script": str(script)})
    sent: list[list[dict]] = []
    generate = model.generate

    async def recording(messages, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        sent.append([{"role": m.role, "content": m.content} for m in messages])
        return await generate(messages, *args, **kwargs)

    model.generate = recording  # type: ignore[method-assign]
    spec = get_agent("two-stage")
    task = get_task("smartplay/crafter")
    params = dict(case["task_params"])
    params["steps"] = str(len(case["answers"]) // 2)
    job = EpisodeJob(task, task.params(params), 0, case["seed"])
    record, _ = asyncio.run(play_episode(job, spec.factory(spec.params(agent_params), model), "two-stage", "mock"))
    assert record.status == "ok", record.error
    return sent


@pytest.mark.parametrize("mode", ["default", "compat"])
def test_crafter_two_stage_requests_equal_smartplays(mode: str, tmp_path: Path) -> None:
    agent_params = {"compat": "true"} if mode == "compat" else {}
    got, expected = _requests(mode, tmp_path, agent_params), _expected(mode)
    assert len(got) == len(expected) == 8
    for n, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        assert ours == theirs, f"request {n}"
    manual = got[0][1]["content"]
    assert (len(manual), fingerprint(manual)) == (DATA["manual_chars"], DATA["manual_sha256_16"])
    assert "List of all actions:" not in manual


def test_action_list_is_opt_in(tmp_path: Path) -> None:
    listed = _requests("default", tmp_path, {"list_actions": "always"})
    assert listed[0][1]["content"].endswith("List of all actions:\n1. Noop\n2. Move West\n3. Move East"
                                            "\n4. Move North\n5. Move South\n6. Do\n7. Sleep\n8. Place Stone"
                                            "\n9. Place Table\n10. Place Furnace\n11. Place Plant"
                                            "\n12. Make Wood Pickaxe\n13. Make Stone Pickaxe\n14. Make Iron Pickaxe"
                                            "\n15. Make Wood Sword\n16. Make Stone Sword\n17. Make Iron Sword")
