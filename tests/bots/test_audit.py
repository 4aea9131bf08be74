"""Measurement that can tell (issue 13, item 5): duplicate deals and the mistake audit.

Each detector is tried on a position built by hand where the mistake happens (it must count)
and on one where it does not (it must not)."""

from __future__ import annotations

import json
import random
from io import StringIO

import pytest

from games.bots.lab import audit, tournament
from games.bots.lab.audit import Auditor
from games.engine import Game, Ruleset, full_deck

RULES = Ruleset.preset("classico")


def filler(n: int, exclude: str = "") -> list[str]:
    """`n` cards for a stock, none of them in `exclude` (a position's other cards)."""
    used = exclude.split()
    out = []
    for c in full_deck():
        if c.text in used or c.is_wild:
            continue
        out.append(c.text)
        if len(out) == n:
            return out
    raise AssertionError("not enough cards")


def played(game: Game, seat: int, actions: list[dict]) -> Game:
    for a in actions:
        game.apply(seat, a)
    return game


# ----------------------------------------------------------------------------- duplicate deals


@pytest.mark.parametrize("players", [2, 4])
def test_a_duplicate_pair_replays_the_same_deal_with_the_seats_swapped(players):
    results = list(tournament.hands("medio", "principiante", games=4, seed=7, players=players,
                                    duplicate=True))
    first, second, third, _ = results
    assert first.game.deal == second.game.deal  # the same cards, the same first player
    assert first.game.deal != third.game.deal  # a new pair, a new deal
    assert (first.a_side, second.a_side) == (0, 1)
    for seat in range(players):
        assert first.levels[seat] == ("medio" if seat % 2 == 0 else "principiante")
        assert second.levels[seat] == ("principiante" if seat % 2 == 0 else "medio")
    # Different players at the seats play the same cards differently.
    assert first.game.actions != second.game.actions
    # The diff is side A's: in the second hand A holds the odd seats' cards.
    s = second.game.score()
    assert second.diff == s[1]["total"] - s[0]["total"]


def test_a_duplicate_run_reports_pairs_and_intervals():
    result = tournament.run("medio", "principiante", games=6, seed=3, duplicate=True)
    assert result["duplicate"] is True
    pairs = result["duplicate_pairs"]
    assert pairs["pairs"] == 3 and pairs["a_won_both"] + pairs["split"] + pairs["b_won_both"] == 3
    low, high = result["win_rate_a_ci95"]
    assert 0 <= low <= result["win_rate_a"] <= high <= 1
    dlow, dhigh = result["mean_score_diff_ci95"]
    assert dlow <= result["mean_score_diff"] <= dhigh
    with pytest.raises(ValueError):
        tournament.run("medio", "principiante", games=5, seed=3, duplicate=True)


def test_the_plain_run_is_the_one_it_was():
    """Without --duplicate the hands are those of the earlier tournaments (seats alternating,
    one rng for the run): seed 1, 200 hands is the run in docs/performance.md."""
    hands = list(tournament.hands("medio", "principiante", games=2, seed=1))
    assert [h.a_side for h in hands] == [0, 1]
    assert hands[0].game.deal != hands[1].game.deal


def test_wilson_interval():
    assert tournament.wilson(90, 100) == [0.8256, 0.9448]
    assert tournament.wilson(10, 10) == [0.7225, 1.0]
    assert tournament.wilson(0, 0) is None
    # A draw counts half: 5 wins and 2 draws in 10 is 6 of 10.
    assert tournament.wilson(6, 10) == tournament.wilson(5 + 2 / 2, 10)


# ----------------------------------------------------------------------------- per-action detectors


def test_early_means_the_first_18_stock_cards():
    assert audit.early_stock(Game.new(Ruleset.preset("classico"), rng=random.Random(1))) == 45
    assert audit.early_stock(Game.new(Ruleset.preset("classico", players=4), rng=random.Random(1))) == 23


def test_dirty_3_card_meld_while_the_stock_is_long():
    hand = "7H 8H JK 9H 4S"
    long = Game.setup(RULES, hands=[hand, "3C 4C"], stock=filler(50, hand + " 3C 4C"), to_move=0)
    long.apply(0, {"type": "draw"})
    dirty = {"type": "meld", "cards": ["7H", "8H", "JK"]}
    assert audit.dirty_3_early(long, 0, dirty, early=45)
    assert audit.action_mistakes(long, 0, dirty, early=45) == ["dirty_3_early"]
    assert not audit.dirty_3_early(long, 0, {"type": "meld", "cards": ["7H", "8H", "9H"]}, early=45)
    assert not audit.dirty_3_early(long, 0, {"type": "meld", "cards": ["7H", "8H", "9H", "JK"]}, early=45)
    short = Game.setup(RULES, hands=[hand, "3C 4C"], stock=filler(40, hand + " 3C 4C"), to_move=0)
    short.apply(0, {"type": "draw"})
    assert not audit.dirty_3_early(short, 0, dirty, early=45)


def test_new_run_beside_an_own_run_it_could_extend():
    game = Game.setup(RULES, hands=["8H 9H TH JH 4S KD", "3C 4C"], stock="QC QD",
                      melds=[["5H 6H 7H"], ["5S 6S 7S"]], to_move=0)
    game.apply(0, {"type": "draw"})
    assert audit.run_beside_own_run(game, 0, {"type": "meld", "cards": ["8H", "9H", "TH"]})
    # Not extendable (a gap at 8): a new run is the only way.
    assert not audit.run_beside_own_run(game, 0, {"type": "meld", "cards": ["9H", "TH", "JH"]})
    # The opponents' run of spades is not the side's own.
    other = Game.setup(RULES, hands=["8S 9S TS 4H KD", "3C 4C"], stock="QC QD",
                       melds=[["5H 6H 7H"], ["5S 6S 7S"]], to_move=0)
    other.apply(0, {"type": "draw"})
    assert not audit.run_beside_own_run(other, 0, {"type": "meld", "cards": ["8S", "9S", "TS"]})


def test_discard_leaving_a_lone_wild_after_the_pozzetto():
    taken = Game.setup(RULES, hands=["5C", "3C 4C"], stock="JK QD", pozzetti=[None, None], to_move=0)
    taken.apply(0, {"type": "draw"})  # 5C JK
    assert audit.lone_wild(taken, 0, {"type": "discard", "card": "5C"})
    natural = Game.setup(RULES, hands=["5C", "3C 4C"], stock="6D QD", pozzetti=[None, None], to_move=0)
    natural.apply(0, {"type": "draw"})
    assert not audit.lone_wild(natural, 0, {"type": "discard", "card": "5C"})
    pozzetto = ["AH AD 6H 6C 7D 7S 8D 8S 9D 9S TD", None]
    before = Game.setup(RULES, hands=["5C", "3C 4C"], stock="JK QD", pozzetti=pozzetto, to_move=0)
    before.apply(0, {"type": "draw"})  # before the pozzetto the wild can still go with the discard
    assert not audit.lone_wild(before, 0, {"type": "discard", "card": "5C"})


def test_wild_discarded_when_a_natural_could_have_been():
    game = Game.setup(RULES, hands=["JK 5C 9D", "3C 4C"], stock="QD QC", to_move=0)
    game.apply(0, {"type": "draw"})
    assert audit.wild_discarded(game, 0, {"type": "discard", "card": "JK"})
    assert not audit.wild_discarded(game, 0, {"type": "discard", "card": "5C"})
    only = Game.setup(RULES, hands=["JK 2C 2S", "3C 4C"], stock="2D QC", to_move=0)
    only.apply(0, {"type": "draw"})
    assert not audit.wild_discarded(only, 0, {"type": "discard", "card": "JK"})


def test_discard_that_fits_an_opponent_meld_when_a_safe_one_existed():
    game = Game.setup(RULES, hands=["9C KH 4S", "3C 4C"], stock="7H QD",
                      melds=[[], ["TC JC QC"]], to_move=0)
    game.apply(0, {"type": "draw"})  # 9C KH 4S 7H
    assert audit.unsafe_discard(game, 0, {"type": "discard", "card": "9C"})
    assert not audit.unsafe_discard(game, 0, {"type": "discard", "card": "4S"})
    forced = Game.setup(RULES, hands=["9C KC KD", "3C 4C"], stock="KH QD",
                        melds=[[], ["TC JC QC", "KS KH KD"]], to_move=0)
    forced.apply(0, {"type": "draw"})  # nothing is safe: every card fits
    assert not audit.unsafe_discard(forced, 0, {"type": "discard", "card": "9C"})


def test_discard_that_completes_an_opponent_burraco():
    game = Game.setup(RULES, hands=["JC 4S", "3C 4C"], stock="7H QD",
                      melds=[[], ["5C 6C 7C 8C 9C TC"]], to_move=0)
    game.apply(0, {"type": "draw"})
    assert audit.gift_burraco(game, 0, {"type": "discard", "card": "JC"})
    assert not audit.gift_burraco(game, 0, {"type": "discard", "card": "4S"})
    assert not audit.gift_burraco(game, 0, {"type": "discard", "card": "7H"})


# ----------------------------------------------------------------------------- over a turn


def audited(game: Game, script: list[tuple[int, dict]], levels=("medio", "principiante")) -> Auditor:
    auditor = Auditor()
    auditor.start(game, list(levels))
    for seat, action in script:
        auditor.step(game, seat, action)
    return auditor


def test_discard_followed_by_the_opponent_taking_the_pile():
    def game() -> Game:
        return Game.setup(RULES, hands=["9C KH 4S", "3C 4C 5D"], stock="7H QD 8S 8D", to_move=0)

    start = [(0, {"type": "draw"}), (0, {"type": "discard", "card": "KH"})]
    taken = audited(game(), start + [(1, {"type": "take_discards"})])
    assert taken.counts["medio"]["pile_taken_after"] == 1
    assert taken.counts["principiante"]["pile_taken_after"] == 0
    drawn = audited(game(), start + [(1, {"type": "draw"})])
    assert drawn.counts["medio"]["pile_taken_after"] == 0


BURRACO = "3D 4D 5D 6D 7D 8D 9D"


def close_game() -> Game:
    """Seat 0 holds 9H TH, draws KS: laying both on 5H-8H and discarding KS closes."""
    return Game.setup(RULES, hands=["9H TH", "3C 4C QS"], stock="KS QD 8S 8C",
                      melds=[[BURRACO, "5H 6H 7H 8H"], []], pozzetti=[None, None], to_move=0)


def test_turn_search_finds_the_close():
    game = close_game()
    game.apply(0, {"type": "draw"})
    reach = audit.turn_reach(game, 0)
    assert reach["close"] is not None and reach["close"] > 0 and not reach["truncated"]
    replayed = played(game.copy(), 0, reach["line"])
    assert replayed.hand_over and replayed.closed_by == 0


def test_a_close_not_taken_is_counted_and_a_close_taken_is_not():
    lay = [(0, {"type": "draw"}), (0, {"type": "lay_off", "meld": 2, "cards": ["9H"]})]
    missed = audited(close_game(), lay + [(0, {"type": "discard", "card": "KS"})])
    counts = missed.counts["medio"]
    assert (counts["close_chances"], counts["missed_close"], counts["missed_winning_close"]) == (1, 1, 1)
    taken = audited(close_game(), lay + [(0, {"type": "lay_off", "meld": 2, "cards": ["TH"]}),
                                         (0, {"type": "discard", "card": "KS"})])
    counts = taken.counts["medio"]
    assert (counts["close_chances"], counts["missed_close"]) == (1, 0)
    # No close in reach: nothing to miss.
    far = Game.setup(RULES, hands=["9H QS", "3C 4C QC"], stock="KS QD 8S 8C",
                     melds=[[BURRACO, "5H 6H 7H 8H"], []], pozzetti=[None, None], to_move=0)
    nothing = audited(far, [(0, {"type": "draw"}), (0, {"type": "discard", "card": "KS"})])
    assert (nothing.counts["medio"]["close_chances"], nothing.counts["medio"]["missed_close"]) == (0, 0)


def pozzetto_game() -> Game:
    return Game.setup(RULES, hands=["9H TH", "3C 4C QS"], stock="KS QD 8S 8C",
                      melds=[["5H 6H 7H 8H"], []], pozzetti=["AH AD 6H 6C 7D 7S 8D 8S 9D 9S TD", None],
                      to_move=0)


def test_a_pozzetto_not_taken_is_counted_and_one_taken_is_not():
    lay = [(0, {"type": "draw"}), (0, {"type": "lay_off", "meld": 1, "cards": ["9H"]})]
    missed = audited(pozzetto_game(), lay + [(0, {"type": "discard", "card": "KS"})])
    assert (missed.counts["medio"]["pozzetto_chances"], missed.counts["medio"]["missed_pozzetto"]) == (1, 1)
    taken = audited(pozzetto_game(), lay + [(0, {"type": "lay_off", "meld": 1, "cards": ["TH"]}),
                                            (0, {"type": "discard", "card": "KS"})])
    assert (taken.counts["medio"]["pozzetto_chances"], taken.counts["medio"]["missed_pozzetto"]) == (1, 0)
    far = Game.setup(RULES, hands=["9H QS", "3C 4C QC"], stock="KS QD 8S 8C",
                     melds=[["5H 6H 7H 8H"], []], pozzetti=["AH AD 6H 6C 7D 7S 8D 8S 9D 9S TD", None],
                     to_move=0)
    nothing = audited(far, [(0, {"type": "draw"}), (0, {"type": "discard", "card": "KS"})])
    assert nothing.counts["medio"]["pozzetto_chances"] == 0


def test_the_auditor_counts_burraco_and_the_summary_is_per_100_side_hands():
    lay = [(0, {"type": "draw"}), (0, {"type": "lay_off", "meld": 2, "cards": ["9H"]}),
           (0, {"type": "lay_off", "meld": 2, "cards": ["TH"]}), (0, {"type": "discard", "card": "KS"})]
    auditor = audited(close_game(), lay)
    summary = auditor.summary()
    assert summary["medio"]["side_hands"] == 1 and summary["medio"]["counts"]["burraco_pulito"] == 1
    assert summary["medio"]["counts"]["discards"] == 1
    assert set(summary["medio"]["per_100_hands"]) == set(audit.CATEGORIES)


def test_an_audited_tournament_counts_per_level():
    result = tournament.run("medio", "principiante", games=4, seed=2, duplicate=True, audit=True)
    table = result["audit"]
    assert set(table) == {"medio", "principiante"}
    assert table["medio"]["side_hands"] == table["principiante"]["side_hands"] == 4
    # The random player throws cards that fit the other side's melds; it always does in 4 hands.
    assert table["principiante"]["counts"]["unsafe_discard"] > 0
    assert table["medio"]["counts"]["discards"] > 0
    text = tournament.report_text(result)
    assert "unsafe_discard" in text and "[95 %" in text
    same = tournament.run("medio", "medio", games=2, seed=2, audit=True)["audit"]
    assert list(same) == ["medio"] and same["medio"]["side_hands"] == 4  # both sides of 2 hands


@pytest.mark.django_db
def test_bot_tournament_command_duplicate_audit():
    from django.core.management import CommandError, call_command

    out = StringIO()
    call_command("bot_tournament", "--games", "2", "--seed", "1", "--duplicate", "--audit", "--json",
                 stdout=out)
    data = json.loads(out.getvalue())
    assert data["duplicate"] and data["duplicate_pairs"]["pairs"] == 1
    assert set(data["audit"]["medio"]["per_100_hands"]) == set(audit.CATEGORIES)
    out = StringIO()
    call_command("bot_tournament", "--games", "2", "--seed", "1", "--duplicate", "--audit", stdout=out)
    assert "missed_close" in out.getvalue() and "A win rate" in out.getvalue()
    with pytest.raises(CommandError):
        call_command("bot_tournament", "--games", "3", "--duplicate", stdout=StringIO())



def test_a_hand_that_never_ends_is_stopped_and_counted(monkeypatch):
    monkeypatch.setattr(tournament, "MAX_ACTIONS", 10)  # no hand ends in 10 actions
    result = tournament.run("medio", "principiante", games=2, seed=1, duplicate=True, audit=True)
    assert result["stuck"] == 2 and result["games"] == 2
    assert "STUCK hands" in tournament.report_text(result)
