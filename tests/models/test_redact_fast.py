"""``redact``'s shortcuts (a cached list of secrets, patterns tried only when their word is present) hide
exactly what the patterns alone hide."""

import re
import sys

import pytest

from playbench.models import redact as redact_module
from playbench.models.redact import _PATTERNS, redact


@pytest.mark.parametrize("text", [
    "Authorization: Bearer sk-abc", "AUTHORİZATİON: basic dXNlcjpw", "authorızation: bearer tok",
    "x-api-key: k123", "X-Goog-Api-Key=abc", "https://h/p?KEY=zz&x=1", "see HTTPS://user:pw@host/x",
    "\u212aey=abc", "plain words only",
])
def test_the_shortcut_hides_what_the_patterns_hide(text: str) -> None:
    expected = text
    for pattern in _PATTERNS:
        expected = pattern.sub(r"\1***", expected)
    assert redact(text) == expected


def test_every_letter_the_patterns_fold_is_caught_by_the_needles() -> None:
    for needle in redact_module._NEEDLES:
        for ch in set(needle):
            fold = re.compile("(?i)" + re.escape(ch))
            for cp in range(sys.maxunicode + 1):
                c = chr(cp)
                if fold.fullmatch(c):
                    assert ch in redact_module._lowered(c), (needle, hex(cp))


def test_a_key_set_after_import_is_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "sk-late-key-1" in redact("sk-late-key-1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-late-key-1")
    assert redact("the key sk-late-key-1 leaked") == "the key *** leaked"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-other-key-2")
    assert redact("sk-late-key-1 sk-other-key-2") == "sk-late-key-1 ***"
