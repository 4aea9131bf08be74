"""esperto's look-ahead: its rollout player."""

from __future__ import annotations

import random

from games.bots import expert, strategy
from games.engine import Card, Game, Ruleset, check_meld


def _positions(hands: int, seed: int):
    """Every position of a few medio-against-medio hands (the game before each action)."""
    rng = random.Random(seed)
    for _ in range(hands):
        game = Game.new(Ruleset.preset("classico"), rng=random.Random(rng.getrandbits(64)))
        for _ in range(3000):
            if game.hand_over:
                break
            seat = game.to_move
            yield game, seat
            game.apply(seat, strategy.greedy_action(game, seat, rng))


def test_rollout_player_is_the_greedy_player_when_the_opponent_is_medio():
    """The remembered and skipped turn searches change no choice: every action is
    `greedy_action`'s, in every position (the same player, remembering across several hands)."""
    player = expert.RolloutPlayer(strategy.DEFAULT, 0)
    compared = lines = 0
    for game, seat in _positions(6, 131):
        want = strategy.greedy_action(game, seat, random.Random(1))
        assert player.action(game, seat, random.Random(1)) == want
        compared += 1
        lines += game.phase == "play" and strategy.finishing_line(game, seat) is not None
    assert compared > 300 and lines > 5  # the positions include turns the search finishes


def test_hopeless_only_where_the_turn_search_finds_nothing():
    skipped = 0
    for game, seat in _positions(8, 7):
        if game.phase != "play" or len(game.hands[seat]) > strategy.DEFAULT.finish_hand:
            continue
        if expert.hopeless(game, seat):
            skipped += 1
            assert strategy.finishing_line(game, seat) is None
    assert skipped > 20  # the shortcut is taken, so the assertion above was tested


def test_stranded_counts_cards_that_cannot_leave_the_hand():
    melds = [check_meld(["5C", "6C", "7C"], Ruleset.preset("classico"))]
    hand = [Card.parse(t) for t in ("KD", "9S", "9H", "8C", "3H")]
    # KD and 3H have no partner and no meld; the 9s pair; 8C goes on the run.
    assert expert.stranded(hand, melds) == 2
    hand = [Card.parse(t) for t in ("KD", "JK", "QC")]
    # QC: the run 5-7C is five places away, but the hand's two other cards cannot bridge it.
    assert expert.stranded(hand, melds) == 2
    assert expert.stranded([Card.parse(t) for t in ("KD", "QD")], melds) == 0
