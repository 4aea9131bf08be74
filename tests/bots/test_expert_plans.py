"""esperto's turn plans: medio's rest of the turn against the same turn keeping the wilds."""

from __future__ import annotations

import random

from games.bots import expert, knowledge, strategy
from games.engine import Card, Game, Ruleset
from tests.bots.helpers import medio_positions


def _play_positions(hands: int, seed: int):
    """The play-phase positions of a few medio-against-medio hands where the mover holds a wild."""
    for game, seat in medio_positions(hands, seed):
        if game.phase == "play" and any(c.is_wild for c in game.hands[seat]):
            yield game, seat


def _plays_wild(action: dict) -> bool:
    return action["type"] in ("meld", "lay_off") and any(Card.parse(t).is_wild for t in action["cards"])


def test_turn_plan_is_the_greedy_players_turn():
    """Played out, the plan is exactly what the greedy player does with esperto's weights
    (`strategy.DEFAULT`, not medio's), action after action, to its discard (or to the pozzetto,
    after which the cards are not known)."""
    plans = 0
    for game, seat in _play_positions(3, 17):
        plan = expert.turn_plan(game, seat)
        g = game.copy()
        for action in plan:
            assert action == strategy.greedy_action(g, seat, None, strategy.DEFAULT)
            g.apply(seat, action)
        assert plan[-1]["type"] == "discard" or g.hand_over or g.pozzetto_state != game.pozzetto_state
        plans += 1
    assert plans > 30


def test_keep_wilds_plan_lays_no_wild_and_is_legal():
    """The plan that keeps the wilds lays none of them (unless it takes the pozzetto or closes),
    every action of it is legal, and the view alone fixes it: the same in every sampled world."""
    differs = 0
    for game, seat in _play_positions(4, 23):
        held = expert.turn_plan(game, seat, keep_wilds=True)
        g = game.copy()
        for action in held:
            if strategy.finishing_line(g, seat) is None:
                assert not _plays_wild(action)
            g.apply(seat, action)  # raises if illegal
        world = knowledge.determinize(game.view(seat), random.Random(3))
        assert expert.turn_plan(world, seat, keep_wilds=True) == held
        differs += held[0] != expert.turn_plan(game, seat)[0]
    assert differs > 5  # medio spends a wild in some of these turns: the plans part ways


def _dirty_meld_position() -> Game:
    """Seat 0 has drawn, 6 cards (racing to the pozzetto); medio melds 9-J-Q of hearts with the
    joker (the 10 missing)."""
    game = Game.setup(Ruleset.preset("classico"),
                      hands=["JH QC 9H 6C QH", "3C 4C 5D 6D 7D 8C 9C TC 2D KS AS"],
                      stock="JK 5H 5C 8S 8H 3D TH", discard="4D", to_move=0,
                      pozzetti=["3S 4S 5S 6S 7H 8H 9S TS JS QS KS", "3H 4H 5H 6H 7C 8D 9D TD JD QD KH"])
    game.apply(0, {"type": "draw"})
    return game


def test_esperto_weighs_keeping_the_wild_against_medio_s_dirty_meld(monkeypatch):
    game = _dirty_meld_position()
    medio = strategy.best_play(game, 0)
    assert medio is not None and _plays_wild(medio)
    plans = expert._plans(game, 0, strategy.DEFAULT)
    assert len(plans) == 2 and plans[0][0] == medio
    assert not any(_plays_wild(a) for a in plans[1]) and plans[1][-1]["type"] == "discard"
    # The plan, not just its first action, is what the look-ahead plays: with the greedy player
    # after a first action that keeps the wild, the wild would go down at once.
    seen: list[list[dict]] = []
    real = expert._rollout

    def rollout(g, seat, plan, rng, player, deadline=None):
        seen.append(list(plan))
        return real(g, seat, plan, rng, player, deadline)

    monkeypatch.setattr(expert, "_rollout", rollout)
    monkeypatch.setattr(expert, "HORIZON_TURNS", 2)
    expert.expert_action(game.view(0), random.Random(1), worlds=2)
    assert plans[1] in seen and plans[0] in seen
    monkeypatch.setattr(expert, "PLAN_KEEP_WILDS", False)
    assert expert._plans(game, 0, strategy.DEFAULT) == [[medio]]
