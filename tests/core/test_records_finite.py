"""``records.finite``: every float searched for (nested dicts, lists and tuples, their subclasses too)."""

from collections import OrderedDict, namedtuple

import numpy as np
import pytest

from playbench.core.records import EpisodeRecord, finite

Pair = namedtuple("Pair", "a b")
NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(("value", "expected"), [
    (1.5, True), (NAN, False), (-INF, False), ("nan", True), (7, True), (True, True), (None, True),
    ({"a": [1, "x", None, {"b": (2.0, 3)}]}, True),
    ({"a": [1, "x", None, {"b": (2.0, INF)}]}, False),  # three levels down
    ([[[[[NAN]]]]], False), ((), True), ({}, True),
    (np.float64("nan"), False), ([np.float64("inf")], False), ([np.float64(2)], True),  # float subclasses
    (OrderedDict(a=NAN), False), ([OrderedDict(a=[NAN])], False), ([Pair(1.0, NAN)], False),  # container subclasses
    ({1.0, NAN}, True),  # sets are not searched (records hold none)
])
def test_finite_finds_every_non_finite_float(value: object, expected: bool) -> None:
    assert finite(value) is expected


def test_a_record_with_a_non_finite_number_deep_in_a_free_form_field_is_refused() -> None:
    fields = {"task": "t", "index": 0, "seed": 1, "status": "ok", "agent": "naive", "steps": 1, "invalid_actions": 0}
    assert EpisodeRecord(**fields, instance={"grid": [[1, 2], [3, 4.5]]}).instance["grid"][1][1] == 4.5
    with pytest.raises(ValueError, match="instance holds a number that is not finite"):
        EpisodeRecord(**fields, instance={"grid": [[1, 2], [3, NAN]]})
