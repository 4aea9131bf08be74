"""ELO ratings, changed exactly once per finished rated match.

Being built by the history-and-ratings feature; the play service calls `record_match_result`
inside the transaction that finishes a match.
"""

from __future__ import annotations


def record_match_result(game) -> None:
    """Apply the rating changes of a just-finished match (idempotent)."""
