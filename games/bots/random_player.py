"""A random computer player: picks among the legal actions, preferring to meld and lay off.

It is the baseline for tests and the benchmark, and a starting point for smarter players: it
reads only what :meth:`Game.legal_actions` offers for its own seat.
"""

from __future__ import annotations

import random
from typing import Any

from games.engine.game import Game

Action = dict[str, Any]


def random_action(game: Game, seat: int, rng: random.Random,
                  take_discards: float = 0.15, play: float = 0.9) -> Action:
    """A legal action for ``seat``: in the draw phase the stock most of the time, then melds
    and lay-offs while there are any (with probability ``play`` each time), then a discard.

    >>> from games.engine import Ruleset
    >>> g = Game.new(Ruleset.preset("classico"), rng=random.Random(3))
    >>> random_action(g, g.to_move, random.Random(0))["type"] in ("draw", "take_discards")
    True
    """
    if game.phase == "draw":
        legal = list(game.legal_actions(seat))
        if not legal:
            raise ValueError("no legal action for this seat")
        if len(legal) > 1 and rng.random() < take_discards:
            return legal[1]
        return legal[0]
    if rng.random() < play:
        plays = list(game.legal_actions(seat, kinds=("lay_off", "meld")))
        if plays:
            return rng.choice(plays)
    discards = list(game.legal_actions(seat, kinds=("discard",)))
    if not discards:
        raise ValueError("no legal action for this seat")
    return rng.choice(discards)

