"""Exceptions that carry meaning across layers."""


class PlaybenchError(Exception):
    """A problem with the user's input: reported as one line on stderr, exit code 2."""


class InfraError(Exception):
    """A failure outside the agent (dead model server, exhausted retries).

    Episodes ending with it get status ``infra-error``: kept, reported, never scored.
    """


class StopRun(InfraError):
    """A fault that makes every further episode pointless: bad credentials, an unreachable server.

    The runner stops the whole run at once (no more requests), keeps every finished episode, records the
    episodes it interrupted as ``infra-error`` and prints this message with the resume command.
    """


class GameError(Exception):
    """The game itself failed in a way another attempt would repeat (a deterministic crash).

    Episodes ending with it get status ``game-error``: kept, reported, never scored, and not re-run by a
    plain ``--resume``.
    """
