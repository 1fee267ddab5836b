"""The two exceptions a user of ziosim can meet.

`ScenarioError` is a mistake in the input: its message is one line
``<field path>: <bad value> — <what is allowed>``, optionally followed by a second
``hint: …`` line naming the nearest valid key. The command line prints it as
``error: …`` and exits 2; it never carries a traceback worth showing.

`InternalError` is a bug in ziosim (a panic in the core, a broken invariant). It carries
the seed and a command line that reproduces the run.
"""

from __future__ import annotations

__all__ = ["ScenarioError", "InternalError"]


class ScenarioError(ValueError):
    """A user mistake in a scenario, named by field path."""

    def __init__(self, line: str, hint: str | None = None) -> None:
        if "\n" in line:
            raise AssertionError(f"ScenarioError must be one line: {line!r}")
        self.line = line
        self.hint = hint
        super().__init__(line if hint is None else f"{line}\nhint: {hint}")


class InternalError(RuntimeError):
    """A bug in ziosim; `reproduce` is a command line that reruns the failing case."""

    def __init__(self, message: str, seed: int | None = None, reproduce: str | None = None) -> None:
        self.seed = seed
        self.reproduce = reproduce
        text = message
        if reproduce:
            text = f"{message} (please report; reproduce: {reproduce})"
        super().__init__(text)
