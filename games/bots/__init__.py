"""Computer players: pure Python, no Django. They read a seat's view (and the public record) only.

    from games.bots import choose_action
    action = choose_action(game.view(seat), "medio", random.Random())

`choose_action(view, level, rng)` returns the next single action for the viewing seat (a turn
is several calls: the draw, melds and lay-offs, the discard); the caller submits it through the
same door as a person's action. Levels:

- ``principiante``: random legal play (prefers melding when it can, like a beginner who melds
  whatever they see);
- ``medio``: greedy, playing for points (`strategy.greedy_action` with `strategy.MEDIO`);
- ``esperto``: samples the hidden cards consistently with the view and looks ahead with the
  greedy player for every seat, within a time budget (`expert.expert_action`); medio's choice
  stands unless another candidate does clearly better in the look-ahead.

Beside the view a player may receive the hand's public record (`Game.public_record()`: who drew,
who took which pile, every meld, lay-off and discard; the same for every seat and never a hidden
card). The expert remembers with it (`knowledge.memory_of`): the cards an opponent took from the
pile and still holds stay in that hand in every sampled world, and the worlds count as much as
the others' last choices are likely in them.

A player never receives the engine state: `knowledge.determinize` rebuilds a game from the view
with the hidden cards dealt at random, so the legal actions it computes are the real ones and
nothing hidden can leak into a decision.
"""

from __future__ import annotations

import random
from typing import Any

from games.bots.expert import expert_action
from games.bots.random_player import random_action
from games.bots.sparring import copy_pile_judge, sparring_action
from games.bots.stall import ping_pong
from games.bots.strategy import MEDIO, MEDIO_WITHOUT_RECORD, greedy_action

from .knowledge import determinize, memory_of

LEVELS = ("principiante", "medio", "esperto")
# The levels a measurement may seat: the site's, and the sparring partner of issue 31, which
# punishes a player that feeds the pile (not offered at the site).
LAB_LEVELS = (*LEVELS, "sparring")

Action = dict[str, Any]


def choose_action(view: dict[str, Any], level: str, rng: random.Random | None = None, *,
                  budget_seconds: float | None = None, worlds: int | None = None,
                  record: list[dict[str, Any]] | None = None, remember: bool = True) -> Action:
    """The next action for the seat whose `view` this is, at `level`.

    `budget_seconds` and `worlds` go to the expert (`expert.expert_action`): a time budget, or
    a fixed number of sampled worlds that makes its choice independent of the clock. `record`
    is the hand's public history (`Game.public_record()`, the same for every seat), which the
    expert remembers (unless `remember` is False: esperto without its memory); views carry no
    history. The other levels depend on the view and `rng` alone, except that every level,
    given the record, draws from the stock when the pile has been passing back and forth with
    nothing drawn or laid down (`stall.ping_pong`), so no hand between computers runs for ever;
    and medio without the record takes a one-card pile only when it pays at once
    (`strategy.MEDIO_WITHOUT_RECORD`), which ends such a loop from the view alone.

    Raises ValueError for an unknown level or when it is not this seat's turn.
    """
    if level not in LAB_LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if not view.get("my_turn"):
        raise ValueError("not this seat's turn")
    rng = rng or random.Random()
    seat = view["seat"]
    if view["phase"] == "draw" and "draw" in view["allowed"] and ping_pong(record, view["players"]):
        return {"type": "draw"}
    if level == "esperto":

        # Its first candidate is medio's choice, the pile judged as medio judges it.
        return expert_action(view, rng, budget_seconds=budget_seconds, worlds=worlds,
                             record=record if remember else None, pile_judge=copy_pile_judge)
    game = determinize(view, rng)
    if level == "sparring":

        return sparring_action(game, seat, rng)
    if level == "principiante":

        return random_action(game, seat, rng)

    # medio takes lone cards from the pile freely only where the record's guard can end a loop.
    if record is None:
        return greedy_action(game, seat, rng, MEDIO_WITHOUT_RECORD)
    known: list[Any] = []
    if MEDIO.reads_record:
        # The next player takes the pile we leave or make: what it is known to hold counts.
        memory = memory_of(view, record)
        if memory is not None:
            known = memory.known.get((seat + 1) % view["players"], [])
    return greedy_action(game, seat, rng, MEDIO, known, pile_judge=copy_pile_judge)
