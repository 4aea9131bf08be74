"""The game: turns, the single-card pile, pozzetto, closing, stock exhaustion, scoring, matches."""

from __future__ import annotations

import json
import random

import pytest

from games.engine import (
    CARD_POINTS,
    MESSAGES,
    OPTIONS,
    PRESETS,
    RULEBOOK_MESSAGES,
    Game,
    IllegalMove,
    Ruleset,
    replay,
)
from tests.engine.helpers import (
    BURRACO,
    CLASSICO,
    MANO_UNICA,
    POZZETTO,
    POZZETTO2,
    TESTA,
    discard,
    draw,
    lay,
    meld,
    play,
    refuse,
    take,
)

STOCK = "QC TS 4C 5C 6C 7C"


def fresh(hands, ruleset=CLASSICO, **kw):
    kw.setdefault("stock", STOCK)
    kw.setdefault("discard", "QD")
    kw.setdefault("pozzetti", [POZZETTO, POZZETTO2])
    return Game.setup(ruleset, hands=hands, **kw)


# ---------------------------------------------------------------- the deal

@pytest.mark.parametrize("players", [2, 4])
def test_deal(players):
    g = Game.new(Ruleset.preset("classico", players=players), rng=random.Random(5))
    deal = g.deal
    assert [len(h) for h in deal["hands"]] == [11] * players
    assert [len(p) for p in deal["pozzetti"]] == [11, 11]
    assert len(deal["discard"]) == 1
    assert len(deal["stock"]) == (63 if players == 2 else 41)
    every = sum(deal["hands"], []) + deal["stock"] + deal["discard"] + sum(deal["pozzetti"], [])
    assert len(every) == 108 and every.count("JK") == 4 and every.count("7H") == 2
    assert g.phase == "draw" and 0 <= g.to_move < players
    json.dumps(deal)


def test_default_deal_uses_the_system_random():
    a, b = Game.new(CLASSICO), Game.new(CLASSICO)
    assert a.deal != b.deal


# ---------------------------------------------------------------- turn refusals

def test_turn_order_refusals():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"])
    refuse(g, 1, draw(), "not_your_turn")
    refuse(g, 0, discard("KD"), "must_draw_first")
    refuse(g, 0, meld("7H 8H 9H"), "must_draw_first")
    refuse(g, 0, {"type": "fly"}, "bad_action")
    refuse(g, 0, "draw", "bad_action")
    refuse(g, 7, draw(), "bad_action")
    g.apply(0, draw())
    refuse(g, 0, draw(), "already_drawn")
    refuse(g, 0, take(), "already_drawn")
    refuse(g, 0, discard("AS"), "card_not_in_hand")
    refuse(g, 0, meld("7H 8H 9H 9H"), "card_not_in_hand")
    refuse(g, 0, discard("XX"), "bad_card")
    refuse(g, 0, {"type": "discard"}, "bad_action")
    refuse(g, 0, lay(99, "KD"), "unknown_meld")
    refuse(g, 0, {"type": "lay_off", "meld": "1", "cards": ["KD"]}, "bad_action")


def test_cannot_lay_off_on_the_opponents_meld():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"], melds=[[], ["4H 5H 6H"]])
    play(g, draw())
    refuse(g, 0, lay(1, "7H"), "unknown_meld")


def test_empty_discard_pile():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"], discard="")
    refuse(g, 0, take(), "discard_pile_empty")
    assert list(g.legal_actions(0)) == [draw()]


def test_hand_over_refusal():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"], stock="QC TS 4C")
    play(g, draw(), discard("KD"))  # the draw left two cards: the hand ends
    assert g.hand_over and g.end_reason == "stock_exhausted"
    refuse(g, 1, draw(), "hand_over")
    assert list(g.legal_actions(1)) == []


# ---------------------------------------------------------------- the single-card pile

def test_single_card_pile_rules():
    g = fresh(["7H 8H 9H", "5S 5D QS"], discard="KD")
    play(g, take())
    assert g.view(0)["picked_single_card"] == "KD"
    refuse(g, 0, discard("KD"), "discard_picked_card")
    refuse(g, 0, meld("7H 8H 9H"), "last_card_from_discard")
    assert {"type": "discard", "card": "KD"} not in list(g.legal_actions(0))
    play(g, discard("9H"))
    assert g.view(0)["picked_single_card"] is None


def test_two_copies_of_the_picked_card_leave_one_to_discard():
    g = fresh(["KD 5H", "5S 5D QS"], discard="KD")
    play(g, take())
    play(g, discard("KD"))  # the copy that was already in hand
    assert [str(c) for c in g.hands[0]] == ["5H", "KD"] and g.to_move == 1


def test_a_pile_of_two_has_no_restriction():
    g = fresh(["7H 8H 9H", "5S 5D QS"], discard="KD QD")
    play(g, take(), meld("7H 8H 9H"), discard("QD"))
    assert g.view(0)["picked_single_card"] is None


# ---------------------------------------------------------------- melds on the table

def test_duplicate_set_refused_but_equal_sequences_allowed():
    g = fresh(["7H 7S JK 9H TH JH", "5S 5D QS"], melds=[["7D 7C 7D", "9H TH JH"], []])
    play(g, draw())
    refuse(g, 0, meld("7H 7S JK"), "duplicate_set")
    play(g, meld("9H TH JH"), lay(1, "7H"))
    assert [len(m.cards) for m in g.melds(0)] == [4, 3, 3]


def test_four_players_share_melds_and_one_pozzetto():
    r = Ruleset.preset("classico", players=4)
    g = Game.setup(r, hands=["7H 8H 9H KS", "5S 5D QS", "TH JH", "6S 6D KS"], stock=STOCK + " 8S 9S JS",
                   discard="QD", pozzetti=[POZZETTO, POZZETTO2])
    play(g, draw(), meld("7H 8H 9H"), discard("QC"))      # seat 0: side 0 opens
    play(g, draw(), discard("TS"))                          # seat 1
    play(g, draw(), lay(1, "TH"), lay(1, "JH"))             # seat 2 lays off on the team's meld
    assert [str(c) for c in g.melds(0)[0].cards] == ["7H", "8H", "9H", "TH", "JH"]
    play(g, discard("4C"))  # seat 2 emptied the hand with the discard: the team's pozzetto
    assert g.pozzetto_state == ["taken", "available"] and len(g.hands[2]) == 11
    play(g, draw(), discard("5C"))                          # seat 3
    play(g, draw(), discard("6C"))                          # seat 0
    v = g.view(0)
    assert v["side"] == 0 and v["pozzetti"] == ["taken", "available"]
    assert v["hand_counts"] == [1, 3, 11, 3]


def test_a_partner_cannot_take_a_second_pozzetto():
    r = Ruleset.preset("classico", players=4)
    g = Game.setup(r, hands=["7H 8H 9H", "5S 5D QS", "TH JH", "6S 6D KS"], stock=STOCK,
                   discard="QD", pozzetti=[None, POZZETTO], melds=[["3H 4H 5H 6H"], []])
    play(g, draw(), discard("QC"), draw(), discard("TS"), draw())  # seat 2 has TH JH 4C
    refuse(g, 2, meld("TH JH 4C"), "mixed_suits")
    refuse(g, 2, lay(1, "4C"), "mixed_suits")
    assert g.view(2)["close_blocker"] == "burraco_required"


# ---------------------------------------------------------------- pozzetto

def test_pozzetto_in_diretta():
    g = fresh(["7H 8H 9H", "5S 5D QS"], stock="TH QC TS 4C 5C")
    play(g, draw(), meld("7H 8H 9H TH"))
    assert g.pozzetto_state[0] == "taken" and len(g.hands[0]) == 11
    assert g.phase == "play" and g.to_move == 0  # goes on playing, without drawing
    refuse(g, 0, draw(), "already_drawn")


def test_pozzetto_with_the_discard():
    g = fresh(["7H 8H 9H", "5S 5D QS"])
    play(g, draw(), meld("7H 8H 9H"), discard("QC"))
    assert g.pozzetto_state[0] == "taken" and len(g.hands[0]) == 11
    assert g.to_move == 1 and g.discard_pile[-1].text == "QC"


def test_after_pozzetto_restrictions():
    base = dict(pozzetti=[None, POZZETTO])
    g = fresh(["7H 8H", "5S 5D QS"], stock="9H TS 4C 5C 6C", **base)
    play(g, draw())
    refuse(g, 0, meld("7H 8H 9H"), "cannot_meld_all_after_pozzetto")
    assert g.view(0)["close_blocker"] == "burraco_required"

    g = fresh(["7H 8H 9H", "5S 5D QS"], stock="KD TS 4C 5C 6C", **base)
    play(g, draw())
    refuse(g, 0, meld("7H 8H 9H"), "single_card_without_burraco")

    g = fresh(["7H 8H 9H", "5S 5D QS"], stock="JK TS 4C 5C 6C", melds=[[BURRACO], []], **base)
    play(g, draw())
    refuse(g, 0, meld("7H 8H 9H"), "single_wild_left")
    assert g.view(0)["can_close"] is True


def test_the_play_that_makes_the_burraco_may_leave_one_card():
    g = fresh(["7H 8H 9H", "5S 5D QS"], stock="KD TS 4C 5C 6C", pozzetti=[None, POZZETTO],
              melds=[["3H 4H 5H 6H"], []])
    play(g, draw(), lay(1, "7H"), lay(1, "8H"))
    play(g, lay(1, "9H"))  # seven cards: a burraco, so KD may stay alone
    assert g.melds(0)[0].burraco == "pulito" and len(g.hands[0]) == 1
    play(g, discard("KD"))  # and the discard closes
    assert g.hand_over and g.end_reason == "closed" and g.closed_by == 0
    s = g.score()[0]
    assert s["closing"] == 100 and s["burraco"] == 200 and s["pozzetto"] == 0


def test_a_discard_may_leave_one_card_after_the_pozzetto():
    """RULES §7: the one-card and single-wild limits bind melds and lay-offs only. A discard
    that leaves one card, even a wild and with no burraco, ends the turn like any other, and
    the next turn starts with a draw: nobody is left without a legal move."""
    for kept in ("JK", "KD"):
        g = fresh([kept, "5S 5D QS"], stock="9H TS 4C 5C 6C", pozzetti=[None, POZZETTO])
        play(g, draw())
        assert discard("9H") in list(g.legal_actions(0))
        play(g, discard("9H"))
        assert [c.text for c in g.hands[0]] == [kept] and g.to_move == 1 and not g.hand_over
        play(g, draw(), discard("QS"))
        assert list(g.legal_actions(0)) == [draw(), take()]
        play(g, draw())
        assert len(g.hands[0]) == 2 and g.phase == "play"


def test_a_two_sliding_into_its_own_place_scores_a_clean_burraco():
    g = fresh(["TS 5D", "5S 5D QS"], pozzetti=[None, POZZETTO],
              melds=[["3S 4S 5S 6S 7S 8S 9S 2S JS QS KS AS"], []])
    assert g.score()[0]["burraco"] == 100
    play(g, draw(), lay(1, "TS"))
    m = g.melds(0)[0]
    assert m.texts()[:2] == ["2S", "3S"] and m.wild is None and m.burraco == "pulito"
    assert g.score()[0]["burraco"] == 200
    assert g.view(1)["melds"][0][0]["wild"] is None  # what the table shows
    assert replay(g.deal, g.actions) == g


def test_a_two_whose_run_now_starts_at_its_three_goes_below_it_in_play():
    """RULES §4 (amended 2026-12-07): the 2 goes below the 3 though the top end is free."""
    g = fresh(["5D 5H", "5S 5C QS"], pozzetti=[None, POZZETTO], melds=[["3D 4D 2D 6D 7D 8D 9D"], []])
    assert g.score()[0]["burraco"] == 100
    play(g, draw(), lay(1, "5D"))
    m = g.melds(0)[0]
    assert m.texts() == "2D 3D 4D 5D 6D 7D 8D 9D".split() and m.wild is None and m.burraco == "pulito"
    assert g.score()[0]["burraco"] == 200
    assert replay(g.deal, g.actions) == g


def test_close_by_melding_both_ways():
    hands = ["7H 8H", "5S 5D QS"]
    for ruleset, outcome in ((CLASSICO, "cannot_meld_all_after_pozzetto"), (MANO_UNICA, None)):
        g = fresh(hands, ruleset, stock="9H TS 4C 5C 6C", pozzetti=[None, POZZETTO],
                  melds=[[BURRACO], []])
        play(g, draw())
        if outcome:
            refuse(g, 0, meld("7H 8H 9H"), outcome)
        else:
            play(g, meld("7H 8H 9H"))
            assert g.hand_over and g.closed_by == 0 and g.score()[0]["closing"] == 100


def test_close_by_melding_needs_a_burraco():
    g = fresh(["7H 8H", "5S 5D QS"], MANO_UNICA, stock="9H TS 4C 5C 6C", pozzetti=[None, POZZETTO])
    play(g, draw())
    refuse(g, 0, meld("7H 8H 9H"), "burraco_required")


def test_closing_melding_can_make_the_burraco():
    g = fresh(["6H 7H 8H", "5S 5D QS"], MANO_UNICA, stock="9H TS 4C 5C 6C",
              pozzetti=[None, POZZETTO], melds=[["3H 4H 5H"], []])
    play(g, draw(), lay(1, "6H"), lay(1, "7H"))
    refuse(g, 0, lay(1, "8H"), "single_card_without_burraco")
    play(g, lay(1, "8H 9H"))  # several cards at once: seven in all, the closing burraco
    assert g.hand_over and g.melds(0)[0].burraco == "pulito"


def _play_phase_with_one_card(card: str, melds) -> Game:
    """A position the rules never reach by themselves: one card in hand in the play phase."""
    g = fresh(["KS QS", "5S 5D QS"], pozzetti=[None, POZZETTO], melds=melds)
    d = g.to_dict()
    d["state"]["hands"][0] = [card]
    d["state"]["phase"] = "play"
    return Game.from_dict(d)


def test_defensive_closing_discard_checks():
    g = _play_phase_with_one_card("JK", [[BURRACO], []])
    refuse(g, 0, discard("JK"), "wild_closing_discard")
    assert [a for a in g.legal_actions(0)] == []
    g = _play_phase_with_one_card("KD", [[], []])
    refuse(g, 0, discard("KD"), "burraco_required")
    g = _play_phase_with_one_card("KD", [[BURRACO], []])
    play(g, discard("KD"))
    assert g.closed_by == 0


# ---------------------------------------------------------------- stock exhaustion

def test_end_at_two():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"], stock="QC TS 4C")
    play(g, draw())
    assert g.view(0)["last_round"] is True and g.view(0)["stock_count"] == 2
    play(g, meld("7H 8H 9H"), discard("KD"))
    assert g.hand_over and g.closed_by is None
    s = g.score()
    assert s[0]["closing"] == s[1]["closing"] == 0
    assert s[0]["pozzetto"] == s[1]["pozzetto"] == -100


def test_pozzetto_becomes_stock():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"], MANO_UNICA, stock="QC")
    play(g, draw(), discard("KD"))
    # Seat 1 must draw from an empty stock: its own side's pozzetto turns into the stock.
    assert g.pozzetto_state == ["available", "became_stock"] and len(g.stock) == 11
    assert g.view(1)["close_blocker"] == "burraco_required"  # may close without a pozzetto
    play(g, draw())
    assert str(g.hands[1][-1]) == POZZETTO2.split()[0]


def test_pozzetto_becomes_stock_then_the_hand_ends():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"], MANO_UNICA, stock="QC", pozzetti=[None, None])
    play(g, draw(), discard("KD"))
    assert g.hand_over and g.end_reason == "stock_exhausted"


def test_a_side_whose_pozzetto_became_stock_closes_and_still_loses_100():
    g = fresh(["7H 8H 9H KD", "4D 5D 6D"], MANO_UNICA, stock="QC",
              pozzetti=[POZZETTO, "KH 8C 8S 9D TD JC QS KS AD 3D 7D"], melds=[[], [BURRACO]])
    play(g, draw(), discard("KD"), draw())
    play(g, meld("4D 5D 6D"))
    assert g.hand_over is False and [str(c) for c in g.hands[1]] == ["KH"]
    play(g, discard("KH"))
    assert g.hand_over and g.closed_by == 1
    assert g.score()[1]["pozzetto"] == -100 and g.score()[1]["closing"] == 100


# ---------------------------------------------------------------- pozzetto_must_be_played

def _closing_race(ruleset):
    g = fresh(["7H 8H 9H", "4S 5S 6S"], ruleset, stock="QC KD TS 4C 5C 6C",
              pozzetti=[POZZETTO, None], melds=[[], ["3H 4H 5H 6H 7H 8H 9H"]])
    play(g, draw(), meld("7H 8H 9H"), discard("QC"))   # seat 0 takes the pozzetto with the discard
    play(g, draw(), meld("4S 5S 6S"), discard("KD"))   # seat 1 closes before seat 0 plays again
    assert g.hand_over and g.closed_by == 1
    return g.score()[0]


def test_pozzetto_must_be_played_both_ways():
    on = _closing_race(TESTA)
    assert on["pozzetto"] == -100 and on["hand"] == 0  # not taken; its cards count for nobody
    off = _closing_race(CLASSICO)
    assert off["pozzetto"] == 0 and off["hand"] == -sum(
        CARD_POINTS["JK" if t == "JK" else t[0]] for t in POZZETTO.split())


def test_a_pozzetto_reaching_its_owners_turn_counts():
    g = fresh(["7H 8H 9H", "4S 5S 6S QH"], TESTA, stock="QC KD TS 4C 5C 6C 7C 8C",
              pozzetti=[POZZETTO, None])
    play(g, draw(), meld("7H 8H 9H"), discard("QC"), draw(), discard("KD"))
    assert g.unplayed == [None, None]


# ---------------------------------------------------------------- scoring and matches

def test_score_parts_add_up_and_hand_is_negative():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"], stock="QC TS 4C")
    play(g, draw(), meld("7H 8H 9H"), discard("KD"))
    s = g.score()
    assert s[0] == {"melds": 25, "burraco": 0, "closing": 0, "hand": -10, "pozzetto": -100,
                    "total": -85}
    assert s[1] == {"melds": 0, "burraco": 0, "closing": 0, "hand": -20, "pozzetto": -100,
                    "total": -120}


def test_single_hand_match_and_tie():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"], TESTA, stock="QC TS 4C")
    play(g, draw(), meld("7H 8H 9H"), discard("KD"))
    m = g.match
    assert m.finished and m.winner == 0 and m.totals == (-85, -120)
    with pytest.raises(IllegalMove) as info:
        g.next_hand()
    assert info.value.code == "match_over"
    tie = fresh(["KD", "QS"], TESTA, stock="QC TS 4C", discard="")
    play(tie, draw(), discard("QC"))
    assert tie.match.finished and tie.match.winner is None


def test_match_to_target_and_rotation():
    r = Ruleset.preset("classico", target=505)
    g = Game.setup(
        r, hands=["7H 8H 9H KD", "5S 5D QS"], stock="QC TS 4C", discard="QD",
        pozzetti=[POZZETTO, POZZETTO2], to_move=1, hand_number=2, totals=(100, 200))
    assert g.match_first == 1  # hand 2 starts at (first + 2) mod 2
    with pytest.raises(IllegalMove) as info:
        g.next_hand()
    assert info.value.code == "hand_not_over"
    play(g, draw(), discard("QC"))
    assert g.hand_over and not g.match.finished
    nxt = g.next_hand(rng=random.Random(3))
    assert nxt.hand_number == 3 and nxt.to_move == (1 + 3) % 2
    assert nxt.totals == g.match.totals
    assert nxt.view(0)["totals"] == list(g.match.totals)


def test_target_reached_and_exact_tie_plays_on():
    r = Ruleset.preset("classico", target=505)
    g = Game.setup(r, hands=["7H 8H 9H KD", "5S 5D QS"], stock="QC TS 4C", discard="QD",
                   pozzetti=[None, None], totals=(600, 500))
    play(g, draw(), meld("7H 8H 9H"), discard("KD"))
    assert g.match.finished and g.match.winner == 0
    g = Game.setup(r, hands=["KD", "QS"], stock="QC TS 4C", pozzetti=[None, None], totals=(600, 600))
    play(g, draw(), discard("QC"))
    assert g.match.totals == (590, 590) and not g.match.finished


# ---------------------------------------------------------------- views, replay, data

def test_view_shows_only_what_the_seat_may_see():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"])
    v = g.view(1)
    assert v["hand"] == ["5S", "5D", "QS"] and v["hand_counts"] == [4, 3]
    assert v["stock_count"] == 6 and v["discard"] == ["QD"]
    assert v["pozzetti"] == ["available", "available"]
    text = json.dumps(v)
    for hidden in ("7H", "KD", "TS", "QC"):
        assert hidden not in text
    pub = g.public_view()
    assert "hand" not in pub and "seat" not in pub
    assert set(pub) <= set(v)
    assert v["allowed"] == [] and g.view(0)["allowed"] == ["draw", "take_discards"]


def test_view_keys():
    v = fresh(["7H 8H 9H KD", "5S 5D QS"]).view(0)
    assert set(v) == {
        "players", "to_move", "phase", "hand_counts", "stock_count", "discard", "melds",
        "pozzetti", "picked_single_card", "last_round", "hand_over", "end_reason", "closed_by",
        "score", "ruleset", "hand_number", "totals", "match", "version", "seat", "side", "hand",
        "my_turn", "can_close", "close_blocker", "allowed", "commitment", "next_commitment"}


def test_replay_and_round_trip():
    g = fresh(["7H 8H 9H KD", "5S 5D QS"])
    play(g, draw(), meld("7H 8H 9H"), discard("KD"))
    assert g.actions == [draw(), meld("7H 8H 9H"), discard("KD")]
    assert replay(g.deal, g.actions) == g
    assert Game.from_dict(json.loads(json.dumps(g.to_dict()))) == g


def test_setup_rejects_impossible_positions():
    for kwargs in ({"hands": ["7H"]}, {"hands": ["7H 7H 7H", "5S"]}, {"hands": ["7H", "5S"], "to_move": 2}):
        with pytest.raises(IllegalMove) as info:
            Game.setup(CLASSICO, **kwargs)
        assert info.value.code == "bad_position"


def test_rules_data_for_the_site():
    assert set(RULEBOOK_MESSAGES) <= set(MESSAGES) and len(RULEBOOK_MESSAGES) == 18
    assert all(m and "…" not in m for m in MESSAGES.values())
    assert {o["name"] for o in OPTIONS} >= {
        "players", "target", "semipulito", "close_by_melding", "stock_exhausted", "burraco_sets",
        "pozzetto_must_be_played"}
    assert set(PRESETS) == {"classico", "mano_unica", "testa_a_testa", "reale"}
    assert CARD_POINTS["JK"] == 30 and CARD_POINTS["2"] == 20 and CARD_POINTS["A"] == 15
    with pytest.raises(IllegalMove) as info:
        Ruleset.preset("classico", players=3)
    assert info.value.code == "bad_option"
    with pytest.raises(IllegalMove):
        Ruleset.preset("nessuno")
    with pytest.raises(IllegalMove):
        Ruleset.preset("classico", colour="red")


@pytest.mark.parametrize("name", ["classico", "mano_unica", "testa_a_testa"])
def test_presets_match_the_table(name):
    r = Ruleset.preset(name)
    expected = {
        "classico": (2005, False, False, "end_at_two", True, False),
        "mano_unica": (None, False, True, "pozzetto_becomes_stock", True, False),
        "testa_a_testa": (None, False, False, "end_at_two", False, True),
    }[name]
    assert (r.target, r.semipulito, r.close_by_melding, r.stock_exhausted, r.burraco_sets,
            r.pozzetto_must_be_played) == expected
    assert Ruleset.from_dict(json.loads(json.dumps(r.to_dict()))) == r
