"""After every change to a game: schedule its turn timer and any computer move.

Being built by the timers-and-computer-players feature; the play service calls
`after_change` from `transaction.on_commit`, so whatever it schedules sees committed state.
"""

from __future__ import annotations


def after_change(game_id: int, version: int) -> None:
    """Schedule the timer for the turn now in play and the computer's move if it is a computer's turn."""
