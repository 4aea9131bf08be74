"""The leaderboards: one per rating mode, players with at least MIN_GAMES rated games.

Ranks are positions in the order (rating desc, user id asc). A page is read in two steps so
that a deep page stays cheap: the page's rows come from the partial index on ranked players
(games/migrations/0002_site_pages_indexes.py, an index-only scan that skips the offset), then
the page's usernames by primary key. A search finds players by the start of their name and
gets all their ranks from one aggregate scan. Every read runs a fixed number of queries.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count, Q

from games.models import PlayerRating, RatingMode

START_RATING = 1500.0  # a newcomer's rating (the models' default); read here and by the rating service

MIN_GAMES = 10  # rated games needed to appear on a leaderboard
PROVISIONAL_BELOW = 30  # fewer rated games than this: the rating is still moving fast (K = 40)
PER_PAGE = 50
SEARCH_LIMIT = 10


@dataclass
class BoardRow:
    rank: int
    user_id: int
    username: str
    rating: float
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_BELOW

    @property
    def win_percent(self) -> float:
        return 100.0 * self.wins / self.games if self.games else 0.0


@dataclass
class BoardPage:
    mode: str
    rows: list[BoardRow]
    number: int
    pages: int
    total: int

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages


def valid_mode(mode: str | None) -> str:
    return mode if mode in RatingMode.values else RatingMode.SINGLES


def ranked(mode: str):
    return PlayerRating.objects.filter(mode=mode, games__gte=MIN_GAMES)


FIELDS = ("user_id", "rating", "games", "wins", "draws", "losses")


def _rows(values: list[tuple], first_rank: int | None, ranks: list[int] | None = None) -> list[BoardRow]:
    names = dict(get_user_model().objects.filter(pk__in=[v[0] for v in values]).values_list("pk", "username"))
    rows = []
    for i, (user_id, rating, games, wins, draws, losses) in enumerate(values):
        rank = ranks[i] if ranks is not None else first_rank + i
        rows.append(BoardRow(rank, user_id, names.get(user_id, "?"), rating, games, wins, draws, losses))
    return rows


def leaderboard_page(mode: str, page: int = 1, per_page: int = PER_PAGE) -> BoardPage:
    """One page of the leaderboard (3 queries: count, the page's ratings, their names)."""
    mode = valid_mode(mode)
    total = ranked(mode).count()
    pages = max(1, -(-total // per_page))
    page = min(max(1, page), pages)
    start = (page - 1) * per_page
    values = list(ranked(mode).order_by("-rating", "user_id").values_list(*FIELDS)[start:start + per_page])
    return BoardPage(mode=mode, rows=_rows(values, start + 1), number=page, pages=pages, total=total)


def _ahead(rating: float, user_id: int) -> Q:
    """Ranked rows placed before (rating, user_id)."""
    return Q(rating__gt=rating) | Q(rating=rating, user_id__lt=user_id)


def rank_of(mode: str, rating: float, user_id: int) -> int:
    return ranked(mode).filter(_ahead(rating, user_id)).count() + 1


def search(mode: str, text: str, limit: int = SEARCH_LIMIT) -> list[BoardRow]:
    """Ranked players whose name starts with `text` (any case), best first, with their ranks.

    Two queries whatever the number of matches: the matches (found through the prefix index on
    the upper-cased username, or by walking the board when the prefix is common), and every
    match's rank from a single count over the rows above the lowest match.
    """
    mode = valid_mode(mode)
    text = text.strip()
    if not text:
        return []
    values = list(
        ranked(mode).filter(user__username__istartswith=text, user__is_active=True)
        .order_by("-rating", "user_id").values_list(*FIELDS, "user__username")[:limit]
    )
    if not values:
        return []
    counts = ranked(mode).filter(rating__gte=values[-1][1]).aggregate(
        # Count a column of the ranked index (not id) so the scan stays index-only.
        **{f"r{i}": Count("user_id", filter=_ahead(v[1], v[0])) for i, v in enumerate(values)}
    )
    ranks = [counts[f"r{i}"] + 1 for i in range(len(values))]
    return [
        BoardRow(ranks[i], user_id, username, rating, games, wins, draws, losses)
        for i, (user_id, rating, games, wins, draws, losses, username) in enumerate(values)
    ]


def page_of_rank(rank: int, per_page: int = PER_PAGE) -> int:
    return (rank - 1) // per_page + 1
