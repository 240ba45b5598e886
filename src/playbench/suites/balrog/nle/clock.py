"""NetHack's calendar, fixed: the date every NLE game of playbench believes it is.

NetHack reads the system clock: on a full moon it starts with "You are lucky! Full moon tonight." and
one point of Luck, on a new moon and on Friday the 13th other rules change, and at night some monsters
act differently. The same seed would then give different games on different days. playbench runs every
NLE engine in a worker process whose clock is frozen at ``FIXED_DATE`` (libfaketime preloaded into that
process only), so records depend on the seed alone. An episode played again from a BALROG leaderboard row
(``--instances``) names the row's date instead (``noon_of``): its engines run in workers of that clock.
"""

import datetime
import os
import re
from pathlib import Path

from playbench.core.errors import PlaybenchError

#: A Monday noon (UTC) in a waxing-gibbous week: no full moon, no new moon, not Friday the 13th, not night.
FIXED_DATE = datetime.datetime(2020, 6, 15, 12, 0, 0, tzinfo=datetime.UTC)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def noon_of(day: str) -> datetime.datetime:
    """Noon UTC of ``day`` (``YYYY-MM-DD``): the clock an episode that names its date plays at (``--instances``).

    A leaderboard row records its date, not the hour its episodes ran: noon is the hour its re-play takes
    too (``leaderboard_nle``). Anything but such a date (from 1990 on) is a ValueError.
    """
    try:
        when = datetime.date.fromisoformat(day) if isinstance(day, str) and _DAY.fullmatch(day) else None
    except ValueError:
        when = None
    if when is None or when.year < 1990:
        raise ValueError(f"NetHack's clock: {str(day)[:40]!r} is not a date YYYY-MM-DD from 1990 on")
    return datetime.datetime(when.year, when.month, when.day, 12, tzinfo=datetime.UTC)

_INSTALL = "install it with `pip install libfaketime` (part of playbench's `nethack` extra)"


def moon_phase(when: datetime.datetime) -> int:
    """NetHack 3.6's ``phase_of_the_moon()`` for a date: 0 new moon ... 4 full moon ... 7."""
    year_day = when.timetuple().tm_yday - 1  # C's tm_yday counts from 0
    golden = (when.year - 1900) % 19 + 1
    epact = (11 * golden + 18) % 30
    if (epact == 25 and golden > 11) or epact == 24:
        epact += 1
    return ((((year_day + epact) * 6) + 11) % 177) // 22 & 7


def preload_library() -> Path:
    """The libfaketime shared library shipped by the ``libfaketime`` wheel."""
    try:
        import libfaketime
    except ImportError:
        raise PlaybenchError(f"NetHack's clock cannot be fixed without libfaketime: {_INSTALL}") from None
    path = Path(libfaketime.__file__).parent / "vendor" / "libfaketime" / "src" / "libfaketime.so.1"
    if not path.is_file():
        raise PlaybenchError(f"libfaketime's library is missing at {path}: reinstall it ({_INSTALL})")
    return path


def worker_environment(when: datetime.datetime = FIXED_DATE) -> dict[str, str]:
    """The environment of an engine worker: this one, less any outer clock faking, plus the clock at ``when``.

    The frozen clock covers the wall clock only (monotonic time stays real, so timeouts still work), and
    replaces any libfaketime a user wrapped playbench in (``faketime DATE playbench …``).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FAKETIME", "DONT_FAKE"))}
    env["LD_PRELOAD"] = str(preload_library())
    env["FAKETIME"] = when.strftime("%Y-%m-%d %H:%M:%S")
    env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
    env["NO_FAKE_STAT"] = "1"  # file times stay real (Python checks .pyc files against them)
    env["TZ"] = "UTC"
    # the worker imports playbench from wherever this process did, installed or not
    package_root = str(Path(__file__).resolve().parents[4])
    env["PYTHONPATH"] = os.pathsep.join([package_root, *filter(None, [env.get("PYTHONPATH")])])
    return env


def clock_is_fixed(when: datetime.datetime = FIXED_DATE) -> bool:
    """Whether this process's wall clock reads ``when`` (checked by a worker before it serves)."""
    import time

    return abs(time.time() - when.timestamp()) < 1.0 and time.localtime().tm_hour == when.hour

