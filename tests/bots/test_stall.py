"""No endless hands (issue 31, point 5): the pile passed back and forth with nothing drawn or laid
down makes every level, the sparring partner included, draw from the stock."""

from __future__ import annotations

import random

import pytest

from games.bots import LAB_LEVELS, choose_action, stall, strategy
from games.engine import Game, Ruleset


def ping_pong_position(seed: int, players: int = 2) -> Game:
    """A hand under way in which the pile has just gone round twice: each seat took it and threw
    a card back, drawing nothing and laying nothing down."""
    game = Game.new(Ruleset.preset("classico", players=players, target=None), rng=random.Random(seed))
    for _ in range(12):  # a few turns of medio first
        game.apply(game.to_move, strategy.greedy_action(game, game.to_move))
    while game.phase != "draw":
        game.apply(game.to_move, strategy.greedy_action(game, game.to_move))
    for _ in range(stall.TAKES_PER_SEAT * players):
        seat = game.to_move
        game.apply(seat, {"type": "take_discards"})
        card = next(game.legal_actions(seat, kinds=("discard",)))
        game.apply(seat, card)
    assert not game.hand_over and game.phase == "draw"
    return game


@pytest.mark.parametrize("players", [2, 4])
def test_every_level_draws_from_the_stock_when_the_pile_goes_round_for_nothing(players):
    game = ping_pong_position(seed=5, players=players)
    record = game.public_record()
    assert stall.fruitless_takes(record) >= stall.TAKES_PER_SEAT * players
    for level in LAB_LEVELS:
        action = choose_action(game.view(game.to_move), level, random.Random(1), record=record, worlds=1)
        assert action == {"type": "draw"}, level
    # one card drawn is progress: the next seat decides freely again
    game.apply(game.to_move, {"type": "draw"})
    assert not stall.ping_pong(game.public_record(), players)


@pytest.mark.parametrize(("a", "b"), [("sparring", "sparring"), ("medio", "esperto"),
                                      ("principiante", "sparring")])
def test_a_hand_from_a_ping_pong_position_ends(a, b):
    game = ping_pong_position(seed=7)
    rng = random.Random(3)
    levels = (a, b)
    for _ in range(1500):
        if game.hand_over:
            break
        seat = game.to_move
        game.apply(seat, choose_action(game.view(seat), levels[seat % 2], rng,
                                       record=game.public_record(), worlds=1))
    assert game.hand_over
