"""What bot_tournament measures (issue 31, point 1): the point margin first, with its interval over
duplicate pairs, real matches to 2005 with a match win rate, the per-hand record, stuck hands."""

from __future__ import annotations

import json
import math
import statistics
from io import StringIO

import pytest

from games.bots.lab import tournament


def test_the_margin_and_its_interval_are_over_duplicate_pairs():
    result = tournament.run("medio", "principiante", games=6, seed=2, duplicate=True)
    hands = list(tournament.hands("medio", "principiante", games=6, seed=2, duplicate=True))
    diffs = [h.diff for h in hands]
    assert result["margin_per_hand"] == round(statistics.fmean(diffs), 1) == result["mean_score_diff"]
    pairs = [(x + y) / 2 for x, y in zip(diffs[::2], diffs[1::2], strict=True)]
    half = 1.96 * statistics.stdev(pairs) / math.sqrt(3)
    assert result["margin_per_hand_ci95"] == [round(statistics.fmean(pairs) - half, 1),
                                              round(statistics.fmean(pairs) + half, 1)]
    assert result["margin_interval_over"] == "duplicate pairs"
    assert list(result)[:2] == ["margin_per_hand", "margin_per_hand_ci95"]  # first in the report
    # the per-hand record, side by side, from the same hands
    per = result["per_hand"]
    records = [tournament.hand_record(h.game, h.a_side) for h in hands]
    assert per["hands"] == 6 and per["stuck"] == result["stuck"] == 0
    assert per["a"]["points"] == round(statistics.fmean(r["points"][0] for r in records), 2)
    assert per["b"]["piles"] == round(statistics.fmean(r["piles"][1] for r in records), 2)
    assert sum(r["closed"] == "a" for r in records) / 6 == pytest.approx(per["a"]["closed"], abs=0.01)
    for h, r in zip(hands, records, strict=True):
        assert r["points"][0] - r["points"][1] == h.diff


def test_real_matches_to_2005_are_played_to_the_end():
    result = tournament.run_matches("medio", "principiante", matches=2, seed=4, duplicate=True)
    assert result["matches"] == 2 and result["target"] == 2005
    assert result["won_a"] + result["won_b"] + result["unfinished"] == 2
    assert result["unfinished"] == 0
    assert result["win_rate_a_ci95"] == tournament.wilson(result["won_a"], 2)
    hands = result["hands"]
    assert hands["games"] >= 2 * 2 and hands["stuck"] == 0  # 2005 takes more than one hand
    assert result["hands_per_match"] == hands["games"] / 2


def test_a_duplicate_match_pair_deals_the_same_hands():
    """Both matches of a pair see the same cards hand for hand: with medio on both sides (and the
    same dice) the two matches are one, the sides' points swapped."""
    matches = []
    for a_side in (0, 1):
        tally = tournament.Tally()
        result = tournament.play_match("medio", "medio", a_side=a_side, deal_seed=11, bot_seed=12,
                                       tally=tally, target=505)
        matches.append((result, [r["points"] for r in tally.records]))
    (first, points0), (second, points1) = matches
    assert points0 == [p[::-1] for p in points1] and first.margin == -second.margin


@pytest.mark.django_db
def test_bot_tournament_prints_matches_and_the_record_as_json():
    from django.core.management import call_command

    out = StringIO()
    call_command("bot_tournament", "--a", "sparring", "--b", "medio", "--games", "2", "--matches", "2",
                 "--duplicate", "--seed", "1", "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["games"] == 2 and data["matches"]["matches"] == 2
    assert set(data["per_hand"]["a"]) >= {"piles", "pile_cards", "burraco", "closed",
                                          "points_when_not_closing", "their_points_when_not_closing"}
    text = StringIO()
    call_command("bot_tournament", "--a", "sparring", "--b", "medio", "--games", "2", "--seed", "1",
                 stdout=text)
    lines = text.getvalue().splitlines()
    assert lines[1].startswith("margin (A-B) per hand") and "stuck hands" in text.getvalue()
