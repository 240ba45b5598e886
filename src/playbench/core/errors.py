"""Exceptions that carry meaning across layers."""


class PlaybenchError(Exception):
    """A problem with the user's input: reported as one line on stderr, exit code 2."""


class InfraError(Exception):
    """A failure outside the agent (dead model server, exhausted retries).

    Episodes ending with it get status ``infra-error``: kept, reported, never scored.
    """
