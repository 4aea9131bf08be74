"""The diagnostic that lets esperto see more than its view (docs/bench/scripts/sees_every_card.py):
each mode deals esperto's worlds with exactly the information it names, and no more."""

from __future__ import annotations

import random
from collections import Counter

from games.bots import strategy
from games.engine import Game, Ruleset
from tests.bots.helpers import load_bench_script


def a_game_under_way(players: int, seed: int) -> Game:
    game = Game.new(Ruleset.preset("classico", players=players, target=None), rng=random.Random(seed))
    for _ in range(25):  # a few turns of medio, so hands, melds and the pile have moved
        game.apply(game.to_move, strategy.greedy_action(game, game.to_move))
    return game


def texts(cards) -> Counter:
    return Counter(c.text for c in cards)


def stock_and_pozzetti(game: Game) -> Counter:
    return texts(game.stock) + sum((texts(p) for p in game.pozzetti if p), Counter())


def test_knowing_the_hands_keeps_them_and_shuffles_only_the_stock_and_pozzetti():
    script = load_bench_script("sees_every_card")
    for players in (2, 4):
        game = a_game_under_way(players, seed=11 + players)
        seat = game.to_move
        script.current["game"] = game
        hidden = stock_and_pozzetti(game)
        orders = set()
        for k in range(5):
            world = script.deal_with_the_hands(game.view(seat), random.Random(k), None)
            assert [texts(h) for h in world.hands] == [texts(h) for h in game.hands]
            assert stock_and_pozzetti(world) == hidden
            assert len(world.stock) == len(game.stock)
            orders.add(tuple(c.text for c in world.stock))
        assert len(orders) > 1  # the stock's order is not known: it differs from world to world


def test_seeing_everything_is_the_real_game():
    script = load_bench_script("sees_every_card")
    game = a_game_under_way(2, seed=3)
    script.current["game"] = game
    world = script.deal_everything(game.view(game.to_move), random.Random(0), None)
    assert world is not game
    assert world.to_dict() == game.to_dict()
