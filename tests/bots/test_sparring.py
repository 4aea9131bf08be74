"""The sparring partner (issue 31, point 2): a lab opponent that takes the pile when it pays and
judges each move on a copy; like every player it reads only its seat's view and the record."""

from __future__ import annotations

import random

from games.bots import LEVELS, sparring
from games.engine import Game, Ruleset
from tests.bots.helpers import same_on_a_twin


def test_it_decides_the_same_whatever_the_hidden_cards_along_a_hand():
    """At each of its decisions in a hand against medio, a twin game that deals every hidden card
    differently (the others' hands, the stock, the pozzetti) but shows the seat the same view and
    the same public record gets the same action."""
    checked = len(same_on_a_twin("sparring", "medio", deal_seed=21, rng_seed=4))
    assert checked > 20


def test_it_is_a_lab_opponent_not_a_level_of_the_site():
    assert "sparring" not in LEVELS


def test_it_takes_a_pile_that_melds_and_lays_off():
    """A pile of four hearts that runs on from its 5-6-7 and makes a set with its pair: taken."""
    ruleset = Ruleset.preset("classico")
    game = Game.setup(ruleset, hands=["KC KD 4S 9C JD", "3C 4C 5C QS QD"], stock="2D 6S 7S",
                      discard="8H 9H TH KS", melds=[["5H 6H 7H"], []], to_move=0)
    assert sparring.sparring_action(game, 0, random.Random(0)) == {"type": "take_discards"}
