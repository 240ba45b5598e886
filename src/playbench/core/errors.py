"""Exceptions that carry meaning across layers."""


class PlaybenchError(Exception):
    """A problem with the user's input: reported as one line on stderr, exit code 2."""


class InfraError(Exception):
    """A failure outside the agent and the game (dead model server, exhausted retries).

    Episodes ending with it get status ``infra-error``: kept, reported, never scored, and played again by
    a plain ``--resume``. An ``OSError`` raised while a game is built, prepared, reset or stepped counts
    the same (see :func:`environment_fault`).
    """


class StopRun(InfraError):
    """A fault that makes every further episode pointless: bad credentials, an unreachable server.

    The runner stops the whole run at once (no more requests): it cancels the episodes still playing and
    records nothing for them (a resume plays them from the start), records every episode that ended before
    the stop, and returns with this message as the run's ``stopped`` reason (``eval`` prints it with the
    resume command).
    """


def environment_fault(exc: BaseException) -> str | None:
    """One line blaming the machine for ``exc`` when an ``OSError`` is behind it (None otherwise).

    A cache that cannot be written, a full disk, a missing file or a refused permission is the
    environment's fault, not the game's: the episode is an ``infra-error`` that a repaired machine can play
    again. ``exc`` counts when it is an ``OSError`` or was raised from one (``raise ... from err``).
    """
    found: BaseException | None = exc
    while found is not None and not isinstance(found, OSError):
        found = found.__cause__
    if not isinstance(found, OSError):
        return None
    what = found.strerror or str(found) or "failed"
    where = f"cannot use {found.filename}: " if found.filename is not None else ""
    return " ".join(f"environment: {where}{what} ({type(found).__name__})".split())
