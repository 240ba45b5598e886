r"""Inert text: record strings (task ids, model names, model output) made safe to show anywhere.

Records are data written by models and games, so any string in them may hold terminal escape sequences,
NUL bytes, lone surrogates or megabytes of text. ``inert_text`` keeps printable text as it is and makes
the rest visible: C0 controls become their Unicode control pictures (ESC shows as ``␛``), other
invisible or reordering characters become ``\x9b``-style escapes, and over-long strings are cut with a
note of how much was left out. Newline and tab are kept unless ``one_line`` asks for a single line.
"""

import re

# C0 controls except tab and newline, and DEL.
_C0 = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# C1 controls (0x9b is a one-byte CSI on some terminals), lone surrogates (unprintable, unencodable),
# bidirectional overrides and isolates (they reorder what a reader sees), and the Unicode line separators.
_OTHER = re.compile(r"[\x80-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def inert_text(value: object, limit: int | None = None, one_line: bool = False) -> str:
    """``value`` as text that no terminal, HTML page or plot interprets (see the module docstring).

    ``limit`` cuts the text to that many characters (plus a note); ``one_line`` also shows newlines and
    tabs as control pictures, for labels such as task ids and table cells.
    """
    text = "" if value is None else str(value)
    note = ""
    if limit is not None and len(text) > limit:
        note = f"… (+{len(text) - limit} characters)"
        text = text[:limit]
    if one_line:
        text = text.replace("\n", "\u2424").replace("\t", "\u2409")
    return _OTHER.sub(_escape, _C0.sub(_picture, text)) + note
