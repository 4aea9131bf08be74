"""No endless hands: the discard pile passing back and forth with nothing happening.

Two computer players can pass the same cards through the pile for ever: each takes it, plays
nothing, and throws a card back (issue 31: an esperto hand ran into the 3,000-action cap). Every
level asks :func:`ping_pong` before it draws and, when the pile has gone round with no progress,
draws from the stock instead. Progress is a card drawn from the stock or a card put on the
table (a meld, a lay-off): the stock only shrinks and the table only grows, so with the guard
a hand between computers always ends.

It reads the hand's public record (`Game.public_record`), the same for every seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PROGRESS = frozenset({"draw", "meld", "lay_off"})
TAKES_PER_SEAT = 2  # each seat took the pile twice since anything happened: that is a loop


def fruitless_takes(record: Sequence[dict[str, Any]]) -> int:
    """How many times the pile was taken since the last card drawn from the stock or put on the
    table.

    >>> fruitless_takes([{"type": "draw"}, {"type": "discard"}, {"type": "take_discards"},
    ...                  {"type": "discard"}, {"type": "take_discards"}, {"type": "discard"}])
    2
    >>> fruitless_takes([{"type": "take_discards"}, {"type": "lay_off"}, {"type": "discard"}])
    0
    """
    takes = 0
    for entry in reversed(record):
        kind = entry["type"]
        if kind in PROGRESS:
            break
        takes += kind == "take_discards"
    return takes


def ping_pong(record: Sequence[dict[str, Any]] | None, players: int) -> bool:
    """Has the pile gone round the table :data:`TAKES_PER_SEAT` times with nothing drawn from the
    stock and nothing laid down? Then the seat about to draw should take a stock card. Without
    a record (a caller that keeps none) there is nothing to see.

    >>> loop = [{"type": "draw"}] + [{"type": "take_discards"}, {"type": "discard"}] * 4
    >>> ping_pong(loop, 2), ping_pong(loop[:-2], 2), ping_pong(loop, 4), ping_pong(None, 2)
    (True, False, False, False)
    """
    return bool(record) and fruitless_takes(record) >= TAKES_PER_SEAT * players
