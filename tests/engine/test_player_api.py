"""The engine's door for computer players and replays: copy, is_legal, position, from_view.
No caller needs a private name or the storage format of to_dict."""

from __future__ import annotations

import random

import pytest

from games.bots.knowledge import determinize
from games.engine import Game, Ruleset


def played(seed: int, players: int = 2, moves: int = 60) -> Game:
    """A hand some way in, by random legal play."""
    rng = random.Random(seed)
    game = Game.new(Ruleset.preset("classico", players=players), rng=rng)
    for _ in range(moves):
        if game.hand_over:
            break
        seat = game.to_move
        game.apply(seat, rng.choice(list(game.legal_actions(seat))))
    return game


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_copy_is_equal_and_independent(seed):
    game = played(seed)
    before = game.to_dict()
    twin = game.copy()
    assert twin == game and twin.to_dict() == before
    rng = random.Random(seed)
    for _ in range(15):  # play on the copy: the original does not move
        if twin.hand_over:
            break
        seat = twin.to_move
        twin.apply(seat, rng.choice(list(twin.legal_actions(seat))))
    assert game.to_dict() == before and twin != game
    assert Game.from_dict(twin.to_dict()) == twin  # the copy stores and restores like any game


@pytest.mark.parametrize("seed", [4, 5])
def test_is_legal_agrees_with_apply_and_changes_nothing(seed):
    game = played(seed, moves=30)
    seat = game.to_move
    before = game.to_dict()
    legal = list(game.legal_actions(seat))
    cards = [c.text for c in game.hands[seat]]
    tried = legal + [{"type": "discard", "card": "ZZ"}, {"type": "meld", "cards": cards[:2]},
                     {"type": "draw"}, {"type": "take_discards"}]
    for action in tried:
        probe = game.copy()
        try:
            probe.apply(seat, action)
            accepted = True
        except Exception:  # noqa: BLE001 - IllegalMove is the one refusal
            accepted = False
        assert game.is_legal(seat, action) is accepted, action
    assert all(game.is_legal(seat, a) for a in legal)
    assert not game.is_legal(1 - seat if game.players == 2 else (seat + 1) % 4, legal[0])
    assert game.to_dict() == before


@pytest.mark.parametrize(("seed", "players"), [(6, 2), (7, 4)])
def test_from_view_rebuilds_what_the_seat_sees(seed, players):
    game = played(seed, players=players, moves=40)
    for seat in range(players):
        view = game.view(seat)
        truth = game.position()
        rebuilt = Game.from_view(view, hands=truth["hands"], stock=truth["stock"], pozzetti=truth["pozzetti"])
        assert rebuilt.view(seat) | {"version": 0} == view | {"version": 0}  # no past actions kept
        assert rebuilt.position() == truth
        guess = determinize(view, random.Random(seed))
        assert guess.view(seat) | {"version": 0} == view | {"version": 0}
        guessed = guess.position()
        assert guessed["hands"][seat] == truth["hands"][seat]
        assert [len(h) for h in guessed["hands"]] == [len(h) for h in truth["hands"]]
        assert len(guessed["stock"]) == len(truth["stock"])
