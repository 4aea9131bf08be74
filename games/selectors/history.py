"""Reads for the history pages: finished games, one game's page, its move log.

Only finished games are listed. A game in progress has a page with its finished hands' scores
and nothing else: no deal, no hand, no move log and no replay (hidden cards stay hidden).
Games at private tables are shown only to the people who sat at them (and the creator), like
the tables themselves (games/selectors/tables.py `can_watch`).
Every read here runs a fixed number of queries, whatever the page or the player.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import Game, Hand, Move, Seat, Table, TournamentPairing

PER_PAGE = 25
# Lists never need the engine state of the hand in play (kilobytes per game) nor the options.
LIST_DEFER = ("state", "table__options")


@dataclass(frozen=True)
class HistoryFilters:
    player: str = ""
    players: int | None = None
    preset: str = ""
    date_from: date | None = None
    date_to: date | None = None


@dataclass
class SideInfo:
    side: int
    seats: list[Seat]
    total: int | None = None
    won: bool = False


@dataclass
class GameRow:
    """One finished game as the lists show it."""

    game: Game
    sides: list[SideInfo] = field(default_factory=list)

    @property
    def table(self) -> Table:
        return self.game.table


@dataclass
class HistoryPage:
    rows: list[GameRow]
    number: int
    has_next: bool
    player: Any = None  # the User filtered by, when found
    player_missing: bool = False

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def _seats_prefetch() -> Prefetch:
    return Prefetch("table__seats", queryset=Seat.objects.select_related("user").order_by("position"))


def sides_of(game: Game, seats: list[Seat]) -> list[SideInfo]:
    totals = (game.result or {}).get("totals") or game.totals or [None, None]
    sides = []
    for side in (0, 1):
        sides.append(SideInfo(
            side=side,
            seats=[s for s in seats if s.position % 2 == side],
            total=totals[side] if len(totals) == 2 else None,
            won=game.finished and game.winner_side == side,
        ))
    return sides


def seat_label(seat: Seat) -> str:
    return seat.user.username if seat.user_id else str(_("Computer"))


def player_table_ids(player) -> list[int]:
    """The tables the player sat at, read first through the Seat.user index.

    A join would let PostgreSQL walk every finished game newest first looking for the player's
    (it assumes they are spread evenly), which at 300,000 games costs tens of milliseconds;
    the list of a player's tables, then the games by table, costs one or two.
    """
    return list(Seat.objects.filter(user=player).values_list("table_id", flat=True))


def find_player(username: str):
    """The active player with this name (exact first, then ignoring case), or None."""
    User = get_user_model()
    name = username.strip()
    if not name:
        return None
    return (
        User.objects.filter(username=name, is_active=True).first()
        or User.objects.filter(username__iexact=name, is_active=True).order_by("pk").first()
    )


def _finished_games():
    """Finished games that may be listed: not those of a duplicate tournament's round still in
    play, whose results would tell its other tables about the cards (`TournamentPairing.held_tables`)."""
    return Game.objects.filter(finished=True).exclude(
        table__tournament_pairing__round__finished_at__isnull=True,
        table__tournament_pairing__round__tournament__duplicate_deals__gt=0)


def history_page(filters: HistoryFilters, page: int = 1, viewer=None, per_page: int = PER_PAGE) -> HistoryPage:
    """A page of finished games, newest first (no COUNT: a page knows only whether another follows)."""
    player = None
    qs = _finished_games()
    if filters.player:
        player = find_player(filters.player)
        if player is None:
            return HistoryPage(rows=[], number=1, has_next=False, player_missing=True)
        qs = qs.filter(table_id__in=player_table_ids(player))
        if viewer is None or not viewer.is_authenticated or viewer.pk != player.pk:
            qs = qs.filter(table__private=False)
    elif viewer is not None and viewer.is_authenticated:
        mine = Seat.objects.filter(user=viewer).values("table_id")
        qs = qs.filter(Q(table__private=False) | Q(table_id__in=mine))
    else:
        qs = qs.filter(table__private=False)
    if filters.players in (2, 4):
        qs = qs.filter(table__players=filters.players)
    if filters.preset:
        qs = qs.filter(table__preset=filters.preset)
    tz = timezone.get_current_timezone()
    if filters.date_from:
        qs = qs.filter(finished_at__gte=datetime.combine(filters.date_from, time.min, tzinfo=tz))
    if filters.date_to:
        qs = qs.filter(finished_at__lte=datetime.combine(filters.date_to, time.max, tzinfo=tz))
    page = max(1, page)
    start = (page - 1) * per_page
    games = list(
        qs.select_related("table")
        .defer(*LIST_DEFER)
        .prefetch_related(_seats_prefetch())
        .order_by("-finished_at", "-id")[start:start + per_page + 1]
    )
    has_next = len(games) > per_page
    rows = [GameRow(game=g, sides=sides_of(g, list(g.table.seats.all()))) for g in games[:per_page]]
    return HistoryPage(rows=rows, number=page, has_next=has_next, player=player)


def player_recent_games(player, viewer=None, limit: int = 10) -> list[GameRow]:
    """The player's latest finished games, for the profile."""
    qs = _finished_games().filter(table_id__in=player_table_ids(player))
    if viewer is None or not viewer.is_authenticated or viewer.pk != player.pk:
        qs = qs.filter(table__private=False)
    games = list(
        qs.select_related("table").defer(*LIST_DEFER).prefetch_related(_seats_prefetch())
        .order_by("-finished_at", "-id")[:limit]
    )
    return [GameRow(game=g, sides=sides_of(g, list(g.table.seats.all()))) for g in games]


def can_see_game(game: Game, viewer) -> bool:
    table = game.table
    if not table.private:
        return True
    if viewer is None or not viewer.is_authenticated:
        return False
    return table.creator_id == viewer.pk or any(s.user_id == viewer.pk for s in table.seats.all())


def game_for_page(game_id: int) -> Game | None:
    """A game with its table, seats and hands (without the deals: the page never shows them)."""
    return (
        Game.objects.select_related("table", "abandoned_by")
        .defer("state")
        .prefetch_related(
            _seats_prefetch(),
            Prefetch("hands", queryset=Hand.objects.defer("deal").order_by("number")),
        )
        .filter(pk=game_id)
        .first()
    )


def game_page_context(game: Game) -> dict[str, Any]:
    seats = list(game.table.seats.all())
    hands = list(game.hands.all())
    finished_hands = [h for h in hands if h.score]
    sides = sides_of(game, seats)
    # An abandoned match ends with its last hand unscored: it is shown and replayed all the same.
    abandoned = game.finished and (
        game.abandoned_by_id is not None or (game.result or {}).get("end_reason") == "abandoned")
    interrupted = [h for h in hands if not h.score][-1:] if abandoned else []
    return {
        "game": game,
        "table": game.table,
        "seats": seats,
        "sides": sides,
        "side_names": [" & ".join(seat_label(s) for s in side.seats) for side in sides],
        "hands": finished_hands,
        "interrupted_hand": interrupted[0] if interrupted else None,
        "replay_hands": (finished_hands + interrupted) if game.finished else [],
        "in_progress": not game.finished,
        "hand_in_play": None if game.finished else game.hand_number,
        "tournament_round": _tournament_round(game.table_id),
    }


def _tournament_round(table_id: int) -> dict[str, Any] | None:
    """The tournament and round a table was played in, if it was a tournament table."""

    row = (TournamentPairing.objects.filter(table_id=table_id)
           .values("round__number", "round__tournament_id", "round__tournament__name").first())
    if row is None:
        return None
    return {"number": row["round__number"], "name": row["round__tournament__name"],
            "url": f"/tornei/{row['round__tournament_id']}/"}


def move_log(game: Game) -> dict[str, Any]:
    """The whole record of a finished game, JSON-ready: seats, rules, every hand's deal, score
    and moves. Callers must check `game.finished` (a deal holds hidden cards)."""
    if not game.finished:
        raise ValueError("the move log of a game in progress would reveal hidden cards")
    seats = list(Seat.objects.filter(table_id=game.table_id).select_related("user").order_by("position"))
    hands = list(Hand.objects.filter(game=game).order_by("number"))
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    by_hand: dict[int, list[dict[str, Any]]] = {}
    for move in moves:
        by_hand.setdefault(move.hand_number, []).append({
            "seq": move.seq, "seat": move.seat, "actor": move.actor, "action": move.action,
            "at": move.created_at.isoformat(),
        })
    table = game.table
    return {
        "format": 1,
        "game": game.pk,
        "table": {"id": table.pk, "players": table.players, "preset": table.preset, "rated": table.rated,
                  "options": table.options},
        "seats": [
            {"position": s.position, "side": s.side, "player": s.user.username if s.user_id else None,
             "computer": s.bot_level or None}
            for s in seats
        ],
        "started_at": table.started_at.isoformat() if table.started_at else None,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "result": game.result,
        "winner_side": game.winner_side,
        "abandoned_by": game.abandoned_by.username if game.abandoned_by_id else None,
        "hands": [
            {"number": h.number, "deal": h.deal, "score": h.score, "moves": by_hand.get(h.number, [])}
            for h in hands
        ],
    }
