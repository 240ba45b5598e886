"""JSON nested past Python's stack, in files a run or a cache may hold: one line, or a miss — never a traceback."""

from pathlib import Path

import pytest

from playbench.core.errors import PlaybenchError
from playbench.models.types import parse_value

#: deep enough that the standard library's json parser raises RecursionError
DEEP = "[" * 200_000 + "]" * 200_000


def test_a_deep_batch_journal_line_is_refused_in_one_line(tmp_path: Path) -> None:
    from playbench.log.batches import BatchJournal

    (tmp_path / "batches.jsonl").write_text(DEEP + "\n")
    with pytest.raises(PlaybenchError, match="line 1 is not a batch journal entry"):
        BatchJournal(tmp_path, tmp_path).entries()


def test_a_deep_cache_entry_is_a_miss(tmp_path: Path) -> None:
    from playbench.models.cache import ResponseCache

    cache = ResponseCache(tmp_path)
    key = "ab" + "0" * 62
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / f"{key}.json").write_text(DEEP)
    assert cache.get(key) is None


def test_a_deep_model_setting_stays_text() -> None:
    assert parse_value(DEEP) == DEEP
