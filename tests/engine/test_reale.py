"""Burraco Reale (RULES §15): the deck, sequences only, the pinelle as the only wilds, the four
burraco bonuses, closing on a clean burraco, the pinella's points and the preset."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games.bots.random_player import random_action
from games.engine import ALL_CARDS, MESSAGES, PRESET_PLAYERS, Game, IllegalMove, Ruleset, parse_cards, replay
from games.engine.melds import BURRACO_BONUS, check_meld, lay_off

from .helpers import CLASSICO, POZZETTO, discard, draw, lay, meld, play, refuse

REALE = Ruleset.preset("reale")
REALE_4 = Ruleset.preset("reale", players=4)
ACE_TO_KING = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"
DIRTY = "3S 4S 2C 6S 7S 8S 9S"  # the 2 of clubs stands for the five: burraco sporco


def refused(cards: str, code: str, ruleset: Ruleset = REALE) -> None:
    with pytest.raises(IllegalMove) as info:
        check_meld(cards, ruleset)
    assert info.value.code == code and info.value.message == MESSAGES[code]


# ---------------------------------------------------------------------------------- the preset


def test_the_preset_follows_section_11_and_15():
    assert (REALE.players, REALE.target, REALE.stock_exhausted, REALE.close_by_melding,
            REALE.semipulito, REALE.pinella_points) == (2, 2005, "end_at_two", False, False, 20)
    assert (REALE.draw_seconds, REALE.play_seconds, REALE.grace_seconds) == (30, 60, 45)
    assert REALE.variant == "reale" and CLASSICO.variant == "classic"
    assert PRESET_PLAYERS["reale"] == (2, 4) and REALE_4.preset_allows_players
    for target in (505, 1005, None):
        assert Ruleset.preset("reale", target=target).target == target
    for ruleset in (REALE, REALE_4, Ruleset.preset("reale", pinella_points=10, target=505)):
        assert Ruleset.from_dict(json.loads(json.dumps(ruleset.to_dict()))) == ruleset


@pytest.mark.parametrize("overrides", [
    {"pinella_points": 15}, {"semipulito": True}, {"burraco_sets": True},
])
def test_options_reale_does_not_have_are_refused(overrides):
    with pytest.raises(IllegalMove) as info:
        Ruleset.preset("reale", **overrides)
    assert info.value.code == "bad_option"


def test_pinella_points_is_reales_option_alone():
    with pytest.raises(IllegalMove):
        Ruleset.preset("classico", pinella_points=10)
    assert "pinella_points" not in CLASSICO.to_dict()  # the other presets' saved options as before


# ---------------------------------------------------------------------------------- the deck


@pytest.mark.parametrize(("ruleset", "stock"), [(REALE, 59), (REALE_4, 37)])
def test_the_deck_has_104_cards_and_no_jolly(ruleset, stock):
    g = Game.new(ruleset, rng=random.Random(5))
    deal = g.deal
    cards = Counter(c for pile in (*deal["hands"], *deal["pozzetti"], deal["stock"], deal["discard"])
                    for c in pile)
    assert sum(cards.values()) == 104 and "JK" not in cards
    assert cards == Counter({c.text: 2 for c in ALL_CARDS if not c.is_joker})
    assert len(deal["stock"]) == stock and [len(h) for h in deal["hands"]] == [11] * ruleset.players
    assert [len(p) for p in deal["pozzetti"]] == [11, 11] and len(deal["discard"]) == 1


def test_a_position_with_a_jolly_is_not_reale():
    with pytest.raises(IllegalMove) as info:
        Game.setup(REALE, hands=["JK 5H", "6S"], stock="7C")
    assert info.value.code == "bad_position"


# ---------------------------------------------------------------------------------- melds


@pytest.mark.parametrize("cards", ["5H 5S 5D", "5H 5H 5C 5D", "5H 5S 2C", "KH KS 2H 2D"])
def test_a_set_is_refused(cards):
    refused(cards, "reale_no_sets")
    if cards != "KH KS 2H 2D":
        assert check_meld(cards, CLASSICO).kind == "set"  # …that classic Burraco reads as a tris


def test_a_set_is_refused_at_the_table():
    g = Game.setup(REALE, hands=["5H 5S 5D 9C", "6S"], stock="7C 8C", discard="QD")
    play(g, draw())
    refuse(g, 0, meld("5H 5S 5D"), "reale_no_sets")


@pytest.mark.parametrize("cards", ["3H 4H JK", "JK 7C 8C 9C"])
def test_a_jolly_is_refused(cards):
    refused(cards, "reale_no_joker")


def test_a_jolly_laid_off_is_refused():
    m = check_meld("3H 4H 5H", REALE)
    with pytest.raises(IllegalMove) as info:
        lay_off(m, parse_cards("JK"), REALE)
    assert info.value.code == "reale_no_joker"


@pytest.mark.parametrize(("cards", "codes"), [
    ("4H 2S 6H 2C", {"pinella_wrong_suit", "two_wilds"}),  # two 2s, neither in its place
    ("4H 2S 2C 7H", {"pinella_wrong_suit", "two_wilds", "gap_too_large", "not_enough_wilds"}),
    ("2H 3H 2S 5H 2C", {"too_many_pinelle"}),
])
def test_a_second_wild_is_refused(cards, codes):
    with pytest.raises(IllegalMove) as info:
        check_meld(cards, REALE)
    assert info.value.code in codes


def test_a_second_wild_laid_off_is_refused_but_a_2_in_its_place_is_not():
    m = check_meld("3H 4H 2C 6H", REALE)
    with pytest.raises(IllegalMove) as info:
        lay_off(m, parse_cards("2S"), REALE)
    assert info.value.code == "pinella_cannot_heal"
    after = lay_off(m, parse_cards("2H"), REALE)  # the second 2 only in its natural place
    assert after.texts() == ["2H", "3H", "4H", "2C", "6H"] and after.wild == 3


def test_a_natural_2_in_its_place_keeps_the_meld_clean():
    m = check_meld("AH 2H 3H 4H 5H 6H 7H", REALE)
    assert m.wild is None and m.burraco == "pulito" and m.bonus == 200
    m = check_meld("2D 3D 4D 5D 6D 7D 8D", REALE)
    assert m.wild is None and m.burraco == "pulito"
    m = check_meld("2D 3D 4D 2C 6D 7D 8D", REALE)  # one natural 2, one standing for the five
    assert m.wild == 3 and m.burraco == "sporco" and m.bonus == 100


def test_nobile_and_reale():
    nobile = check_meld(ACE_TO_KING, REALE)
    assert (nobile.burraco, nobile.bonus, nobile.low) == ("nobile", 500, 1)
    reale = check_meld(ACE_TO_KING + " AH", REALE)
    assert (reale.burraco, reale.bonus, len(reale.cards)) == ("reale", 1000, 14)
    ace_high = check_meld("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", REALE)
    assert ace_high.burraco == "pulito" and ace_high.low == 2  # 2 … K A: a plain pulito
    dirty = check_meld("AH 2H 3H 4H 5H 6H 7H 2C 9H TH JH QH KH", REALE)
    assert dirty.burraco == "sporco"  # ace to king, but a pinella stands for the eight
    dirty = check_meld("AH 2H 3H 4H 5H 6H 7H 2C 9H TH JH QH KH AH", REALE)
    assert dirty.burraco == "sporco"
    assert BURRACO_BONUS["reale"] == 1000 and BURRACO_BONUS["nobile"] == 500


def test_nobile_grows_into_reale_by_lay_off():
    nobile = check_meld(ACE_TO_KING, REALE)
    assert lay_off(nobile, parse_cards("AH"), REALE).burraco == "reale"
    twelve = check_meld("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH", REALE)
    assert twelve.burraco == "pulito"
    assert lay_off(twelve, parse_cards("KH"), REALE).burraco == "nobile"


def test_a_nobile_scores_500_in_the_hand():
    g = Game.setup(REALE, hands=["5C 6C", "7D"], stock="9C 8C", discard="QD",
                   melds=[[ACE_TO_KING], ["AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"]])
    s = g.score()
    assert s[0]["burraco"] == 500 and s[1]["burraco"] == 1000
    assert s[0]["melds"] == 15 + 20 + 6 * 5 + 6 * 10 - 5  # A, the 2, 3..7, 8..K


# ---------------------------------------------------------------------------------- closing


def closing_position(side_melds: list[str], hand: str = "9S", stock: str = "KD QC JC") -> Game:
    """Seat 0's side has its pozzetto; seat 0 holds ``hand`` and draws next."""
    return Game.setup(REALE, hands=[hand, "7D 8D"], stock=stock, discard="4C",
                      pozzetti=[None, POZZETTO], melds=[side_melds, []])


def test_closing_with_only_a_dirty_burraco_is_refused():
    g = closing_position([DIRTY], hand="")
    assert g.close_blocker(0) == "clean_burraco_required"
    assert g.view(0)["can_close"] is False
    play(g, draw())
    err = refuse(g, 0, discard("KD"), "clean_burraco_required")
    assert err.message == "Bisogna aver fatto un Burraco pulito per terminare"
    # The same position in classic Burraco closes.
    classic = Game.setup(CLASSICO, hands=["", "7D 8D"], stock="KD QC JC", discard="4C",
                         pozzetti=[None, POZZETTO], melds=[[DIRTY], []])
    play(classic, draw(), discard("KD"))
    assert classic.closed_by == 0


def test_staying_with_one_card_needs_a_clean_burraco():
    g = closing_position([DIRTY], hand="TS")
    play(g, draw())
    err = refuse(g, 0, lay(1, "TS"), "single_card_without_clean_burraco")  # KD alone would be left
    assert err.message.endswith("senza aver fatto un Burraco pulito")
    g = closing_position([DIRTY, "3C 4C 2D 6C 7C 8C"], hand="9C")
    play(g, draw())
    refuse(g, 0, lay(2, "9C"), "single_card_without_clean_burraco")  # a second dirty one


def test_the_closing_play_itself_may_complete_the_clean_burraco():
    g = closing_position([DIRTY, "3C 4C 5C 6C 7C 8C"], hand="9C")
    play(g, draw(), lay(2, "9C"))
    assert g.melds(0)[1].burraco == "pulito" and g.close_blocker(0) is None
    play(g, discard("KD"))
    assert g.hand_over and g.closed_by == 0 and g.end_reason == "closed"
    s = g.score()[0]
    assert s["closing"] == 100 and s["burraco"] == 300 and s["hand"] == 0
    assert replay(g.deal, g.actions) == g


def test_a_new_clean_burraco_melded_with_one_card_left():
    g = closing_position([DIRTY], hand="3C 4C 5C 6C 7C 8C 9C")
    play(g, draw(), meld("3C 4C 5C 6C 7C 8C 9C"), discard("KD"))
    assert g.closed_by == 0


# ---------------------------------------------------------------------------------- points


@pytest.mark.parametrize(("pinella", "meld_points", "hand_points"), [(20, 30 + 20, -20), (10, 20 + 10, -10)])
def test_pinella_points(pinella, meld_points, hand_points):
    ruleset = Ruleset.preset("reale", pinella_points=pinella)
    assert check_meld("2H 3H 4H 2C", ruleset).points == meld_points  # a natural 2 and a wild one
    g = Game.setup(ruleset, hands=["2S", "7D"], stock="9C 8C", discard="QD",
                   melds=[["2H 3H 4H 2C"], []])
    assert g.score()[0]["melds"] == meld_points and g.score()[0]["hand"] == hand_points


def test_classic_keeps_the_pinella_at_20():
    assert check_meld("2H 3H 4H 2C", CLASSICO).points == 50


# ---------------------------------------------------------------------------------- random play

FULL_REALE = Counter({c.text: 2 for c in ALL_CARDS if not c.is_joker})


def _all_cards(g: Game) -> Counter:
    piles = [*g.hands, g.stock, g.discard_pile, *(p for p in g.pozzetti if p is not None),
             *(m.cards for side in g.table for m in side)]
    return Counter(c.text for pile in piles for c in pile)


def play_reale_hand(seed: int, players: int, pinella: int) -> Game:
    ruleset = Ruleset.preset("reale", players=players, pinella_points=pinella)
    g = Game.new(ruleset, rng=random.Random(seed))
    rng = random.Random(seed * 31 + players)
    while not g.hand_over:
        g.apply(g.to_move, random_action(g, g.to_move, rng))
        assert _all_cards(g) == FULL_REALE  # conservation: the 104 cards, no jolly, every step
    closers = []
    for side in (0, 1):
        for m in g.table[side]:
            assert m.kind == "sequence" and sum(c.is_wild for c in m.cards) - (m.wild is not None) <= 1
            assert m.points == sum(ruleset.card_points(c) for c in m.cards)
            assert m.burraco in (None, "sporco", "pulito", "nobile", "reale")
        closers.append(any(m.burraco in ("pulito", "nobile", "reale") for m in g.table[side]))
    if g.closed_by is not None:
        assert closers[g.closed_by % 2], "closed without a clean burraco"
    for side, s in enumerate(g.score()):  # score identity
        assert s["total"] == s["melds"] + s["burraco"] + s["closing"] + s["hand"] + s["pozzetto"]
        assert s["burraco"] == sum(BURRACO_BONUS[m.burraco] for m in g.table[side] if m.burraco)
        hand = sum(ruleset.card_points(c) for seat in range(side, players, 2) for c in g.hands[seat])
        assert s["hand"] == -hand
    assert replay(g.deal, g.actions) == g
    assert Game.from_dict(json.loads(json.dumps(g.to_dict()))) == g
    return g


def run_hands(seeds: range) -> Counter:
    ends: Counter = Counter()
    for seed in seeds:
        players, pinella = (2, 4)[seed % 2], (20, 10)[seed // 2 % 2]
        ends[play_reale_hand(seed, players, pinella).end_reason] += 1
    return ends


def test_random_reale_hands():
    """300 random hands (2 and 4 players, pinella at 20 and 10): card conservation at every step,
    sequences only, Reale's bonuses and score identity."""
    ends = run_hands(range(300))
    assert sum(ends.values()) == 300 and ends["closed"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("start", range(300, 10_000, 2425))
def test_ten_thousand_random_reale_hands(start):
    """With the default run's 300, 10,000 hands, in four parts for a parallel run."""
    stop = min(start + 2425, 10_000)
    assert sum(run_hands(range(start, stop)).values()) == stop - start


@pytest.mark.parametrize("players", [2, 4])
def test_a_fair_reale_deal_has_104_cards_and_checks_out(players):
    from games.engine.deal import FairSeed, check_deal

    fair = FairSeed.from_hex("5a" * 32, [""] * players)
    g = Game.new(Ruleset.preset("reale", players=players), rng=random.Random(1), fair=fair)
    deal = g.deal
    cards = Counter(c for pile in (*deal["hands"], *deal["pozzetti"], deal["stock"], deal["discard"]) for c in pile)
    assert cards == Counter({c.text: 2 for c in ALL_CARDS if not c.is_joker})
    assert check_deal(deal, fair.seed_hex).code == "ok"
    assert check_deal(deal, "5b" * 32).code == "seed_mismatch"
