"""A trajectory line written with orjson is the same JSON pydantic would write, and reads back."""

from playbench.core.records import StepRecord


def _step(**extra: object) -> StepRecord:
    return StepRecord(step=2, observation="rod é\u2028", executed="a", valid=True, reward=0.1, score=1e-7,
                      messages=[{"role": "user", "content": 'say "hi"\n'}], extra=dict(extra),
                      timing={"latency_s": 0.25})


def test_json_line_matches_pydantic_and_reads_back() -> None:
    step = _step(pair=(1, 2), nan=float("nan"))
    line = step.json_line()
    assert line == (step.model_dump_json() + "\n").encode()
    assert StepRecord.model_validate_json(line).extra == {"pair": [1, 2], "nan": None}


def test_json_line_falls_back_where_orjson_refuses() -> None:
    step = _step(by_number={1: "one"})  # a non-string key: orjson refuses it, pydantic writes "1"
    assert step.json_line() == (step.model_dump_json() + "\n").encode()
