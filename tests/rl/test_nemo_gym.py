"""NeMo Gym (Python >= 3.12): playbench's GymnasiumServer played by NeMo Gym's own gymnasium_agent.

The test (Python 3.11 here) makes a mock run and replays it through ChatEnv; then, in the Python 3.12
environment scripts/setup.sh builds (``<venv>/py312``: nemo-gym and playbench), this file runs as a script:
on loopback, in one event loop as NeMo Gym's servers each run in one, the resources server
(``PlaybenchGymServer``), NeMo Gym's ``GymnasiumAgent`` and a model server answering with the run's recorded
answers; each row of ``dataset_rows`` goes to the agent's ``/run`` through NeMo Gym's ``ServerClient``, as its
rollout collection posts rows. The first model request must be ChatEnv's first request, each observation the
newest message of ChatEnv's next request, and the reward the run's official score.
"""

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PY312 = Path(sys.prefix) / "py312" / "bin" / "python"
SEED = 5
TASKS = ["smartplay/hanoi-3", "balrog/babyai/goto"]
#: episodes per task: Hanoi's start is the same for every episode (one), BabyAI's differ
EPISODES = {"smartplay/hanoi-3": 1, "balrog/babyai/goto": 2}


def _python312() -> str:
    return subprocess.run(["bash", str(ROOT / "scripts" / "python312.sh")], capture_output=True, text=True,
                          check=False).stdout.strip()


def _reference(tmp_path: Path) -> list[dict[str, Any]]:
    """Each episode of a mock run: its answers, ChatEnv's requests for them, and its official score."""
    import playbench
    from playbench.rl import ChatEnv

    episodes, invalid = [], 0
    for task in TASKS:
        run = playbench.eval(task, model="mock/demo", episodes=EPISODES[task], seed=SEED, log_dir=tmp_path,
                             model_params={"invalid_rate": 0.3}, task_params={"max_steps": 12})
        log = playbench.read_run(run.path)
        for record in log.episodes():
            steps = log.read_trajectory(record)
            answers = [s.raw_output or "" for s in steps]
            invalid += sum(not s.valid for s in steps)
            env = ChatEnv(task, index=record.index, seed=SEED, task_params={"max_steps": 12}, model="mock/demo")
            requests = [env.reset()]
            results = [env.step(a) for a in answers]
            requests += [r.messages for r in results]
            assert requests[:-1] == [s.messages for s in steps] and requests[-1] == []  # ChatEnv sends the run's
            assert env.score == record.score and record.status == "ok"
            episodes.append({"task": task, "index": record.index, "answers": answers, "requests": requests,
                             "score": record.score, "terminated": results[-1].terminated,
                             "truncated": results[-1].truncated})
    assert invalid and any(0 < e["score"] for e in episodes)  # invalid answers played, and scores not all 0
    return episodes


def test_nemo_gym_rollouts_play_chat_envs_requests_and_score(tmp_path: Path) -> None:
    import pytest  # here: the Python 3.12 side runs this file without pytest

    python312 = _python312()
    if not python312:
        pytest.skip("not run: no Python 3.12 here (scripts/python312.sh finds none), and nemo-gym needs Python >= 3.12")
    if not PY312.exists():
        pytest.fail(f"Python 3.12 is here ({python312}) but not the NeMo Gym environment {PY312.parent.parent}: "
                    "run scripts/setup.sh (make setup)")
    episodes = _reference(tmp_path)
    (tmp_path / "in.json").write_text(json.dumps({"seed": SEED, "episodes": episodes}))
    done = subprocess.run([str(PY312), __file__, str(tmp_path / "in.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["nemo_gym"].startswith("0.4") and len(out["rollouts"]) == len(episodes)
    for episode, rollout in zip(episodes, out["rollouts"], strict=True):
        requests, answers = episode["requests"], episode["answers"]
        assert rollout["row_input"] == requests[0]  # the dataset row carries ChatEnv's first request
        calls = rollout["model_inputs"]
        assert len(calls) == len(answers)
        assert calls[0] == requests[0]  # the first model request is ChatEnv's, as eval sends it
        observations = [m["content"] for m in rollout["output"] if m.get("role") == "user"]
        assert observations == [r[-1]["content"] for r in requests[1:-1]]  # each the newest message of the next
        said = [m["content"][0]["text"] for m in rollout["output"] if m.get("role") == "assistant"]
        assert said == answers
        for n, call in enumerate(calls[1:], start=1):  # one growing conversation: answer, observation, ...
            assert call == calls[n - 1] + [{"role": "assistant", "content": answers[n - 1]},
                                           {"role": "user", "content": requests[n][-1]["content"]}]
        assert rollout["reward"] == episode["score"]  # the official score
        assert (rollout["terminated"], rollout["truncated"]) == (episode["terminated"], episode["truncated"])
        assert rollout["info"]["status"] == "ok" and rollout["info"]["messages"] == []
    assert out["refused"] == 422 and "not served here" in out["refused_detail"]


# -- the Python 3.12 side: NeMo Gym's servers on loopback ------------------------------------------------------


def _free_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


def _plain_messages(items: list[Any]) -> list[dict[str, Any]]:
    """Input items as ``{"role", "content"}`` (assistant outputs as the agent passes them on)."""
    plain = []
    for item in items:
        item = item if isinstance(item, dict) else item.model_dump(exclude_none=True)
        content = item["content"]
        if isinstance(content, list):  # an assistant output message: its text
            content = "".join(part["text"] for part in content)
        plain.append({"role": item["role"], "content": content})
    return plain


def _rows(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The dataset's rows (made outside an event loop: ChatEnv's synchronous API), each sent to the agent."""
    from playbench.rl.nemo_gym import dataset_rows

    rows = []
    for task in dict.fromkeys(e["task"] for e in spec["episodes"]):
        count = sum(e["task"] == task for e in spec["episodes"])
        rows += dataset_rows([task], episodes=count, seed=spec["seed"], task_params={"max_steps": 12}, model="mock/demo")
    return [row | {"agent_ref": {"type": "responses_api_agents", "name": "agent"}} for row in rows]


async def _play(spec: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    import uvicorn
    from fastapi import Body
    from nemo_gym.base_responses_api_model import BaseResponsesAPIModelConfig, SimpleResponsesAPIModel
    from nemo_gym.config_types import BaseServerConfig
    from nemo_gym.openai_utils import NeMoGymResponse, NeMoGymResponseCreateParamsNonStreaming
    from nemo_gym.package_info import __version__
    from nemo_gym.server_utils import (
        GlobalAIOHTTPAsyncClientConfig,
        ServerClient,
        get_response_json,
        set_global_aiohttp_client,
    )
    from omegaconf import OmegaConf
    from responses_api_agents.gymnasium_agent.app import GymnasiumAgent, GymnasiumAgentConfig

    from playbench.rl.nemo_gym import PlaybenchGymConfig, PlaybenchGymServer

    episodes = spec["episodes"]
    by_first = {json.dumps(e["requests"][0]): e for e in episodes}
    assert len(by_first) == len(episodes), "episodes must start differently (the model tells them by it)"
    seen: dict[str, list[list[dict[str, Any]]]] = {}

    class RecordedModel(SimpleResponsesAPIModel):  # type: ignore[misc]
        """Answers with the run's recorded answers: the episode told by its first request, the step by the turns."""

        async def responses(self, body: NeMoGymResponseCreateParamsNonStreaming = Body()) -> Any:  # noqa: B008
            messages = _plain_messages(list(body.input))
            key = next(k for k, e in by_first.items() if messages[:len(e["requests"][0])] == e["requests"][0])
            seen.setdefault(key, []).append(messages)
            answer = by_first[key]["answers"][sum(m["role"] == "assistant" for m in messages)]
            return NeMoGymResponse(id="r", created_at=0.0, model="recorded", object="response", parallel_tool_calls=False,
                                   tool_choice="none", tools=[],
                                   output=[{"id": "m", "type": "message", "role": "assistant", "status": "completed",
                                            "content": [{"type": "output_text", "text": answer, "annotations": []}]}])

        async def chat_completions(self, body: Any) -> Any:
            raise NotImplementedError

    socks = {name: _free_socket() for name in ("playbench", "policy", "agent")}
    ports = {name: s.getsockname()[1] for name, s in socks.items()}
    kinds = {"playbench": "resources_servers", "policy": "responses_api_models", "agent": "responses_api_agents"}
    global_config = OmegaConf.create({name: {kinds[name]: {name: {"host": "127.0.0.1", "port": ports[name]}}}
                                      for name in socks})
    set_global_aiohttp_client(GlobalAIOHTTPAsyncClientConfig())
    client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=1), global_config_dict=global_config)

    def base(name: str) -> dict[str, Any]:
        return {"host": "127.0.0.1", "port": ports[name], "entrypoint": "app.py", "name": name}

    tasks = sorted({e["task"] for e in episodes})
    servers = {
        "playbench": PlaybenchGymServer(config=PlaybenchGymConfig(**base("playbench"), tasks=tasks,
                                                                  task_params={"max_steps": 12}, model="mock/demo"),
                                        server_client=client),
        "policy": RecordedModel(config=BaseResponsesAPIModelConfig(**base("policy")), server_client=client),
        "agent": GymnasiumAgent(config=GymnasiumAgentConfig(
            **base("agent"), max_steps=100, resources_server={"type": "resources_servers", "name": "playbench"},
            model_server={"type": "responses_api_models", "name": "policy"}), server_client=client),
    }
    running = [uvicorn.Server(uvicorn.Config(servers[name].setup_webserver(), log_level="warning")) for name in socks]
    tasks_ = [asyncio.ensure_future(server.serve(sockets=[socks[name]])) for server, name in zip(running, socks, strict=True)]
    while not all(server.started for server in running):
        await asyncio.sleep(0.01)

    async def run(row: dict[str, Any]) -> dict[str, Any]:  # as NeMo Gym's rollout collection posts a row
        response = await client.post(server_name=row["agent_ref"]["name"], url_path="/run", json=row)
        response.raise_for_status()
        return dict(await get_response_json(response))

    results = await asyncio.gather(*(run(row) for row in rows))  # concurrently, one session each
    refused = await client.post(server_name="playbench", url_path="/reset",
                                json={"responses_create_params": {"input": []}, "task": "smartplay/rps-basic"})
    out = {"nemo_gym": __version__, "refused": refused.status, "refused_detail": (await refused.json())["detail"],
           "rollouts": []}
    order = {(e["task"], e["index"]): e for e in episodes}
    for row, result in sorted(zip(rows, results, strict=True), key=lambda p: episodes.index(order[p[0]["task"], p[0]["index"]])):
        first = json.dumps(row["responses_create_params"]["input"])
        out["rollouts"].append({"row_input": row["responses_create_params"]["input"], "model_inputs": seen.get(first, []),
                                "output": result["response"]["output"], "reward": result["reward"],
                                "terminated": result["terminated"], "truncated": result["truncated"],
                                "info": result["info"]})
    for server in running:
        server.should_exit = True
    await asyncio.gather(*tasks_)
    return out


if __name__ == "__main__":
    spec_ = json.loads(Path(sys.argv[1]).read_text())
    Path(sys.argv[2]).write_text(json.dumps(asyncio.run(_play(spec_, _rows(spec_)))))
