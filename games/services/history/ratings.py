"""ELO ratings, changed exactly once per finished rated match.

The play service calls `record_match_result(game)` inside the transaction that finishes a match,
after it has set `game.finished`, `game.winner_side` (None = a draw) and, for an abandoned match,
`game.abandoned_by`. Ratings are kept per mode: "2p" (one against one) and "4p" (pairs).

The arithmetic (also explained on the rules page, FAQ "Classifiche"):
- everyone starts at 1500;
- a side's rating is its player's rating, or in pairs the mean of its two players' ratings;
- expected score of side A against side B: E = 1 / (1 + 10 ** ((Rb - Ra) / 400));
- a match won counts 1, drawn 0.5, lost 0; a player who abandons a rated match loses it;
- each player's change is K × (S − E) with the side's S and E and the player's *own* K: 40 for the
  player's first 30 rated games in that mode, then 20, and 10 once the player's peak reached 2400
  (that takes precedence). So partners move in the same direction, by amounts that can differ.

Only public tables of people count: `Table.rated` must be set and `Table.private` not (friends
at an invite-only table could trade wins; the table service refuses that pair, this is the last
guard for rows made any other way), every seat must be a person, and no seat may have been played
by the computer for most of the match (`covered_moves > own_moves`), except the seat of a player
who abandoned (else abandoning would dodge the loss).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from games.models import Game, PlayerRating, RatingChange, RatingMode, Seat, Table

K_NEW = 40
K_NEW_GAMES = 30  # K_NEW applies while fewer than this many rated games were played
K_REGULAR = 20
K_MASTER = 10
MASTER_PEAK = 2400.0


def expected_score(rating: float, opponent: float) -> float:
    """The ELO expectation of a side rated `rating` against one rated `opponent`.

    >>> expected_score(1500, 1500)
    0.5
    >>> round(expected_score(1900, 1500), 3)
    0.909
    """
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def k_factor(games: int, peak: float) -> int:
    """A player's K: 40 for the first 30 rated games, then 20; 10 once the peak reached 2400.

    >>> k_factor(0, 1500), k_factor(29, 1500), k_factor(30, 1500), k_factor(3, 2400)
    (40, 40, 20, 10)
    """
    if peak >= MASTER_PEAK:
        return K_MASTER
    return K_NEW if games < K_NEW_GAMES else K_REGULAR


def mode_for(table: Table) -> str:
    return RatingMode.of(table.players, table.preset)


def is_rated(game: Game, seats: Iterable[Seat]) -> bool:
    """Whether this finished match changes ratings (see the module docstring)."""
    seats = list(seats)
    table = game.table
    if not table.rated or table.private or len(seats) != table.players:
        return False
    if any(seat.user_id is None or seat.bot_level for seat in seats):
        return False
    if len({seat.user_id for seat in seats}) != len(seats):
        return False  # one person in two seats is no contest
    return not any(
        seat.covered_moves > seat.own_moves and seat.user_id != game.abandoned_by_id for seat in seats
    )


def side_scores(game: Game, seats: Iterable[Seat]) -> dict[int, float]:
    """Match score per side: 1 won, 0.5 drawn, 0 lost; an abandoning player's side loses."""
    if game.abandoned_by_id is not None:
        quitter = next((s for s in seats if s.user_id == game.abandoned_by_id), None)
        if quitter is not None:
            return {quitter.side: 0.0, 1 - quitter.side: 1.0}
    if game.winner_side is None:
        return {0: 0.5, 1: 0.5}
    return {game.winner_side: 1.0, 1 - game.winner_side: 0.0}


@transaction.atomic
def record_match_result(game: Game) -> list[RatingChange]:
    """Apply the rating changes of a just-finished match, exactly once; returns the changes.

    Idempotent: a retried finish finds the changes already stored and applies nothing (the
    PlayerRating rows are locked first, in user order, so concurrent finishes neither deadlock
    nor both pass the check; the unique (user, game) constraint is the last guard).
    An unfinished or unrated match returns [] and changes nothing.
    """
    if not game.finished:
        return []
    seats = list(Seat.objects.filter(table_id=game.table_id).order_by("position"))
    if not is_rated(game, seats):
        return []
    mode = mode_for(game.table)
    user_ids = sorted(seat.user_id for seat in seats)

    PlayerRating.objects.bulk_create(
        [PlayerRating(user_id=uid, mode=mode) for uid in user_ids], ignore_conflicts=True
    )
    locked = {
        r.user_id: r
        for r in PlayerRating.objects.select_for_update().filter(user_id__in=user_ids, mode=mode).order_by("user_id")
    }
    existing = list(RatingChange.objects.filter(game=game).order_by("user_id"))
    if existing:
        return existing

    by_side: dict[int, list[PlayerRating]] = {0: [], 1: []}
    for seat in seats:
        by_side[seat.side].append(locked[seat.user_id])
    side_rating = {side: sum(r.rating for r in rs) / len(rs) for side, rs in by_side.items()}
    scores = side_scores(game, seats)

    changes: list[RatingChange] = []
    for side, ratings in by_side.items():
        expected = expected_score(side_rating[side], side_rating[1 - side])
        score = scores[side]
        for rating in ratings:
            before = rating.rating
            after = before + k_factor(rating.games, rating.peak) * (score - expected)
            rating.rating = after
            rating.peak = max(rating.peak, after)
            rating.games += 1  # the row is locked: plain arithmetic is safe
            if score == 1.0:
                rating.wins += 1
            elif score == 0.0:
                rating.losses += 1
            else:
                rating.draws += 1
            rating.save(update_fields=["rating", "peak", "games", "wins", "draws", "losses", "updated_at"])
            changes.append(
                RatingChange(user_id=rating.user_id, game=game, mode=mode, before=before, after=after, score=score)
            )
    RatingChange.objects.bulk_create(changes)
    return changes
