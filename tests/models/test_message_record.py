"""A text-only message's record (``Message.record``) is a plain dict whose keys share one table between records
(half the memory): it must read, copy, compare and serialize exactly as the dict literal it replaced.
"""

import json
import pickle
import subprocess
import sys

import orjson

from playbench.models.types import Message, messages_record


def test_a_text_only_record_is_the_dict_it_always_was() -> None:
    for message, literal in [
        (Message("user", "Current Observation:\na wall"), {"role": "user", "content": "Current Observation:\na wall"}),
        (Message("assistant", "turn left", parts=True), {"role": "assistant", "content": "turn left", "parts": True}),
    ]:
        record = message.record()
        assert type(record) is dict and record == literal and list(record) == list(literal)
        assert json.dumps(record) == json.dumps(literal) and orjson.dumps(record) == orjson.dumps(literal)
        assert pickle.loads(pickle.dumps(record)) == literal
        assert message.record() is record  # kept while the message shows the same
        assert messages_record([message]) == [literal]


def test_a_copy_is_the_callers_own_and_leaves_every_record_as_it_was() -> None:
    message = Message("user", "a wall")
    record = message.record()
    copy = record.copy()
    copy["content"] = "changed"
    copy["name"] = "player"  # a caller may add keys of its own
    del copy["role"]
    assert record == {"role": "user", "content": "a wall"} and message.record() is record
    assert copy == {"content": "changed", "name": "player"}
    later = Message("system", "the manual").record()  # records made after it have their own keys only
    assert list(later) == ["role", "content"] and later.copy() == {"role": "system", "content": "the manual"}


def test_a_changed_message_gets_a_new_record_and_the_old_one_stays() -> None:
    message = Message("user", "before")
    old = message.record()
    message.content = "after"
    message.parts = True
    assert message.record() == {"role": "user", "content": "after", "parts": True}
    assert old == {"role": "user", "content": "before"}


def test_a_detached_record_is_a_new_equal_dict_and_the_message_keeps_none() -> None:
    from playbench.models.types import Image

    image = Image(b"\x89PNG", 1, 1)
    for message in (Message("user", "a wall"), Message("assistant", "up", parts=True),
                    Message("user", "seen", (image,))):
        held = message.record()  # a step record's, say
        before = json.dumps(held)
        detached = message.detached_record()
        assert detached == held and list(detached) == list(held) and detached is not held
        assert json.dumps(detached) == before and orjson.dumps(detached) == orjson.dumps(held)
        assert message._record is None  # nothing left cached on the message
        detached["content"] = "changed"
        assert json.dumps(held) == before and message.record() == held  # the caller's own: nobody else's changes
    assert Message("user", "a wall").detached_record() == {"role": "user", "content": "a wall"}


def test_a_process_that_only_detaches_records_gets_them_small() -> None:
    # A fresh process (no record made before): a detached record is smaller than the dict literal, not twice as big.
    code = ("import sys\nfrom playbench.models.types import Message\n"
            "print(sys.getsizeof(Message('user', 'x').detached_record()), sys.getsizeof({'role': 'user', 'content': 'x'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    detached, literal = map(int, out.split())
    assert detached < literal
