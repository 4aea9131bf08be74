"""A player's ratings for the profile: both modes, rank, record and the rating-history chart.

The chart is drawn by the server as SVG (templates/games/history_profile.html); this module only
computes its geometry. The history read is the latest CHART_POINTS changes per mode, through
the (user, mode, created_at) index, so a player with thousands of games costs the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from games.models import PlayerRating, RatingChange, RatingMode
from games.selectors.leaderboards import MIN_GAMES, PROVISIONAL_BELOW, START_RATING, rank_of

CHART_POINTS = 100


@dataclass
class ModeSummary:
    mode: str
    label: str
    rating: PlayerRating | None
    rank: int | None = None
    history: list[tuple[datetime, float]] = field(default_factory=list)

    @property
    def ranked(self) -> bool:
        return self.rating is not None and self.rating.games >= MIN_GAMES

    @property
    def provisional(self) -> bool:
        return self.rating is None or self.rating.games < PROVISIONAL_BELOW

    @property
    def games_to_rank(self) -> int:
        return MIN_GAMES - (self.rating.games if self.rating else 0)

    @property
    def win_percent(self) -> float:
        if not self.rating or not self.rating.games:
            return 0.0
        return 100.0 * self.rating.wins / self.rating.games


def profile_ratings(user) -> list[ModeSummary]:
    """Both modes for one player (at most 5 queries: ratings, 2 histories, 2 ranks)."""
    ratings = {r.mode: r for r in PlayerRating.objects.filter(user=user)}
    summaries = []
    for mode, label in RatingMode.choices:
        summary = ModeSummary(mode=mode, label=str(label), rating=ratings.get(mode))
        if summary.rating is not None:
            changes = list(
                RatingChange.objects.filter(user=user, mode=mode)
                .order_by("-created_at", "-id")
                .values_list("created_at", "before", "after")[:CHART_POINTS]
            )
            changes.reverse()
            if changes:
                summary.history = [(changes[0][0], changes[0][1])] + [(when, after) for when, _b, after in changes]
            if summary.ranked:
                summary.rank = rank_of(mode, summary.rating.rating, user.pk)
        summaries.append(summary)
    return summaries


@dataclass
class ChartSeries:
    mode: str
    label: str
    points: str  # "x,y x,y ..." for an SVG polyline
    last: tuple[str, str] | None  # SVG coordinates are strings: never localised ("12,5")


@dataclass
class Chart:
    width: int
    height: int
    series: list[ChartSeries]
    ticks: list[tuple[str, int]]  # (y, rating)
    start: datetime | None
    end: datetime | None
    baseline: str | None  # y of the starting rating

    @property
    def empty(self) -> bool:
        return not self.series


def rating_chart(summaries: list[ModeSummary], width: int = 640, height: int = 220) -> Chart:
    """Polylines for each mode's history on a shared time axis and rating scale."""
    left, right, top, bottom = 48, 12, 12, 26
    all_points = [p for s in summaries for p in s.history]
    if not all_points:
        return Chart(width, height, [], [], None, None, None)
    times = [p[0].timestamp() for p in all_points]
    values = [p[1] for p in all_points]
    t0, t1 = min(times), max(times)
    low = min(min(values), START_RATING) - 20
    high = max(max(values), START_RATING) + 20
    step = _nice_step((high - low) / 4)
    low, high = step * (low // step), step * -(-high // step)

    def x(t: float) -> float:
        span = t1 - t0
        return left + (width - left - right) * ((t - t0) / span if span else 0.5)

    def y(v: float) -> float:
        return top + (height - top - bottom) * (1 - (v - low) / (high - low))

    series = []
    for s in summaries:
        if not s.history:
            continue
        coords = [(f"{x(when.timestamp()):.1f}", f"{y(value):.1f}") for when, value in s.history]
        series.append(ChartSeries(s.mode, s.label, " ".join(f"{a},{b}" for a, b in coords), coords[-1]))
    ticks = []
    value = low
    while value <= high + 1e-9:
        ticks.append((f"{y(value):.1f}", int(value)))
        value += step
    first = min(p[0] for p in all_points)
    last = max(p[0] for p in all_points)
    return Chart(width, height, series, ticks, first, last, f"{y(START_RATING):.1f}")


def _nice_step(raw: float) -> float:
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if raw <= step:
            return float(step)
    return 1000.0
