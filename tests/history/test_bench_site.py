"""bench_site at a tiny size: it fills consistent data and times every page (the real run is manual)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from games.models import Game, Hand, PlayerRating, RatingChange

pytestmark = pytest.mark.django_db


def test_bench_site_fills_consistent_data_and_times_every_page():
    out = StringIO()
    call_command("bench_site", "--in-place", "--players", "30", "--changes", "240", "--games", "50",
                 "--repeat", "1", "--recorded", "1", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["machine"]["nproc"] >= 1
    fill = report["fill"]
    assert fill["players"] == 30 and fill["rating_changes"] == 240 == RatingChange.objects.count()
    assert fill["matches"] >= 50 and fill["recorded_matches"] == 6
    assert Game.objects.filter(finished=True).count() == fill["matches"] + fill["recorded_matches"]
    assert Hand.objects.count() >= Game.objects.count()
    expected = {"leaderboard_first_page", "leaderboard_deep_page", "player_search", "profile_with_chart",
                "history_by_player", "history_first_page", "game_page"}
    assert set(report["pages"]) == expected
    for page in report["pages"].values():
        assert page["median_ms"] > 0
        assert 1 <= page["queries"] <= 10
    # The ratings were computed by the ELO rules: each player's changes chain, and end on the rating.
    assert sum(PlayerRating.objects.values_list("games", flat=True)) == 240
    for rating in PlayerRating.objects.all()[:20]:
        chain = list(RatingChange.objects.filter(user_id=rating.user_id, mode=rating.mode)
                     .order_by("created_at", "id").values_list("before", "after"))
        assert len(chain) == rating.games
        assert chain[0][0] == 1500.0
        assert all(a[1] == pytest.approx(b[0]) for a, b in zip(chain, chain[1:], strict=False))
        assert chain[-1][1] == pytest.approx(rating.rating)
        assert rating.peak == pytest.approx(max([1500.0] + [after for _before, after in chain]))
