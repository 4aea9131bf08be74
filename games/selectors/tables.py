"""Reads for one table: who may see it, and the frames that describe it to each socket.

Every frame that carries a view is built here for one recipient: `view(seat)` for a seated
player, `public_view()` for spectators. Nothing in this module ever puts two seats' views (or a
seat's view and the public group) in the same frame.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.utils.translation import gettext_lazy as _

from games.engine import Game as EngineGame
from games.engine import replay
from games.live import frames, presence
from games.live.sockets import seat_rows
from games.models import Game, Hand, Move, Seat, Table

from .lobby import table_summary

# Ready-made chat phrases (RULES §13: no free text at the table).
CHAT_PHRASES: tuple[tuple[str, Any], ...] = (
    ("ciao", _("Ciao!")),
    ("buona_fortuna", _("Buona fortuna")),
    ("bella_mano", _("Bella mano!")),
    ("ben_giocato", _("Ben giocato")),
    ("grazie", _("Grazie")),
    ("un_attimo", _("Un attimo, arrivo")),
    ("ops", _("Ops!")),
    ("complimenti", _("Complimenti!")),
    ("scusate_devo_andare", _("Scusate, devo andare")),
    ("alla_prossima", _("Alla prossima!")),
)


def chat_phrases() -> list[dict[str, str]]:
    return [{"id": pid, "text": str(text)} for pid, text in CHAT_PHRASES]


def phrase_text(phrase_id: str) -> str | None:
    for pid, text in CHAT_PHRASES:
        if pid == phrase_id:
            return str(text)
    return None


def get_table(table_id: int) -> Table | None:
    """The table with its creator's and its seats' usernames (`table.seats.all()` in seat order)."""
    found = table_and_game(table_id)
    return found[0] if found is not None else None


def table_and_game(table_id: int) -> tuple[Table, Game | None] | None:
    """The table as `get_table` gives it, and its game, in two statements written once here.

    Every socket that opens asks for this (its snapshot): built and compiled by the ORM, the four
    queries it took cost more of a server's CPU than the rest of opening the socket together
    (docs/performance.md). The rows become model instances through the fields' own converters,
    as the ORM's would."""
    with connection.cursor() as cursor:
        cursor.execute(_TABLE_SQL, [table_id])
        row = cursor.fetchone()
        if row is None:
            return None
        cursor.execute(_SEATS_SQL, [table_id])
        seat_rows = cursor.fetchall()
    table_width, game_width = len(_TABLE_FIELDS), len(_GAME_FIELDS)
    table = _instance(Table, row[:table_width])
    table.creator = _user(table.creator_id, row[table_width])
    game_values = row[table_width + 1:table_width + 1 + game_width]
    game = _instance(Game, game_values) if game_values[0] is not None else None
    seats = []
    for seat_row in seat_rows:
        seat = _instance(Seat, seat_row[:-1])
        seat.user = _user(seat.user_id, seat_row[-1]) if seat.user_id is not None else None
        seats.append(seat)
    prefetched = Seat.objects.filter(table_id=table_id)
    prefetched._result_cache, prefetched._prefetch_done = seats, True
    table._prefetched_objects_cache = {"seats": prefetched}  # what prefetch_related leaves
    return table, game


_TABLE_FIELDS = Table._meta.concrete_fields
_GAME_FIELDS = Game._meta.concrete_fields
_SEAT_FIELDS = Seat._meta.concrete_fields
_USER_MODEL = Table._meta.get_field("creator").related_model
_USER_TABLE = _USER_MODEL._meta.db_table


def _columns(fields, alias: str) -> str:
    return ", ".join(f'{alias}."{field.column}"' for field in fields)


_TABLE_SQL = (
    f"SELECT {_columns(_TABLE_FIELDS, 't')}, c.username, {_columns(_GAME_FIELDS, 'g')}"
    f' FROM "{Table._meta.db_table}" t INNER JOIN "{_USER_TABLE}" c ON c.id = t.creator_id'
    f' LEFT OUTER JOIN "{Game._meta.db_table}" g ON g.table_id = t.id WHERE t.id = %s'
)
_SEATS_SQL = (
    f"SELECT {_columns(_SEAT_FIELDS, 's')}, u.username"
    f' FROM "{Seat._meta.db_table}" s LEFT OUTER JOIN "{_USER_TABLE}" u ON u.id = s.user_id'
    " WHERE s.table_id = %s ORDER BY s.position"
)


def _instance(model, values):
    """A model instance from its columns in field order, converted as the ORM converts them
    (dates on SQLite, booleans, JSON)."""
    converted = []
    for field, value in zip(model._meta.concrete_fields, values, strict=True):
        column = field.get_col(model._meta.db_table)
        for convert in connection.ops.get_db_converters(column) + field.get_db_converters(connection):
            value = convert(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, None, converted)


def _user(user_id: int, username: str):
    """A user with only its id and username loaded (any other field loads when first read)."""
    return _USER_MODEL.from_db(connection.alias, ["id", "username"], [user_id, username])


def seats_in_order(table: Table) -> list[Seat]:
    return sorted(table.seats.all(), key=lambda s: s.position)


def user_position(table: Table, user) -> int | None:
    """The seat this person sits in at the table, or None."""
    if user is None or not user.is_authenticated:
        return None
    for seat in table.seats.all():
        if seat.user_id == user.pk:
            return seat.position
    return None


def computer_played_for(seats: Iterable[Seat]) -> list[str]:
    """The people of a finished match who never sat down: not one move of their own, the timer
    and the computer played all of theirs (`Seat.own_moves` and `covered_moves`, counted when the
    match ends). The page's scoring and the frames that end a match name them."""
    return [s.user.username for s in sorted(seats, key=lambda s: s.position)
            if s.user_id and not s.own_moves and s.covered_moves]


def can_watch(table: Table, user, invited: Iterable[int] = ()) -> bool:
    """Public tables are open to every signed-in player; a private one only to the people sitting
    at it, its creator, and whoever opened its invite link in this session."""
    if not table.private:
        return True
    if user is not None and user.is_authenticated and (
        table.creator_id == user.pk or user_position(table, user) is not None
    ):
        return True
    return table.pk in set(invited)


def can_start(table: Table, user) -> bool:
    return (
        table.status == Table.Status.WAITING
        and user_position(table, user) is not None
        and all(not s.is_empty for s in table.seats.all())
    )


# ----------------------------------------------------------------------------- frames
# The frames are built in games/live/frames.py; these read what they need.


def presence_list(table: Table) -> list[dict[str, Any]]:
    return frames.presence_rows(((s.position, s.is_computer, s.covered_by_computer) for s in table.seats.all()),
                                presence.online_positions(table.pk))


def presence_frame(table_id: int, sockets: presence.Sockets | None = None) -> dict[str, Any]:
    """The table's presence frame; `sockets`: its live sockets when the caller has just read them."""
    return frames.presence(seat_rows(table_id), sockets if sockets is not None else presence.sockets_at(table_id))


def table_frame(table: Table) -> dict[str, Any]:
    """The seating changed (someone sat, left, a computer joined, the game started or ended)."""
    table = get_table(table.pk) or table
    return frames.table(table_summary(table))


def snapshot_frame(game: Game | None, table: Table, position: int | None,
                   engine_game: EngineGame | None = None) -> dict[str, Any]:
    """Everything one socket needs to draw the table from scratch."""
    computer_for = computer_played_for(table.seats.all()) if game is not None and game.finished else None
    frame = frames.snapshot(game, table_summary(table), position, presence_list(table), engine_game,
                            computer_for=computer_for)
    if game is not None and game.hand_number > 1 and not game.finished:
        frame["last_hand"] = last_hand(game)
    return frame


def last_hand(game: Game) -> dict[str, Any] | None:
    """The scoring of the hand before the one in play, as its `hand_over` had it: a page that was
    away when it ended (the computer covering its seat) shows it on coming back."""
    score = Hand.objects.filter(game=game, number=game.hand_number - 1).values_list("score", flat=True).first()
    if not score:
        return None
    return {"hand_number": game.hand_number - 1, "score": score, "totals": list(game.totals),
            "match_over": False, "winner_side": None}


def snapshot_messages(game_id: int) -> list[tuple[str, dict[str, Any]]]:
    """A fresh snapshot for every seat's group and one for the spectators."""
    game = Game.objects.select_related("table").get(pk=game_id)
    table = get_table(game.table_id)
    engine_game = EngineGame.from_dict(game.state)
    return frames.per_recipient(table.pk, table.players,
                                lambda position: [snapshot_frame(game, table, position, engine_game)])


RESYNC_EVENTS_MAX = 30  # a client this many versions behind (or fewer) gets the events it missed


def resync_frames(table_id: int, position: int | None, last_version: int | None) -> list[dict[str, Any]]:
    """The answer to `hello`: the events the client missed, if it names its last version and
    the missed moves are few and all in the hand in play (lila's getEventsSince); else a fresh
    snapshot. Each missed event is rebuilt for this recipient by replaying the hand's log."""
    found = table_and_game(table_id)
    if found is None:
        return []
    table, game = found
    if game is None or last_version is None or not 0 <= game.version - last_version <= RESYNC_EVENTS_MAX:
        return [snapshot_frame(game, table, position)]
    if game.version == last_version:
        return [snapshot_frame(game, table, position)]
    missed = list(Move.objects.filter(game=game, seq__gt=last_version).order_by("seq"))
    hand = Hand.objects.filter(game=game, number=game.hand_number).first()
    if hand is None or not missed or any(m.hand_number != game.hand_number for m in missed):
        return [snapshot_frame(game, table, position)]
    earlier = list(Move.objects.filter(game=game, hand_number=game.hand_number, seq__lte=last_version)
                   .order_by("seq").values_list("action", flat=True))
    engine_game = replay(hand.deal, earlier)
    out = []
    for move in missed:
        engine_game.apply(move.seat, move.action)
        last = move is missed[-1]
        out.append(frames.event(
            version=move.seq, hand_number=game.hand_number, seat=move.seat, actor=move.actor, action=move.action,
            played=engine_game, position=position, deadline=game.turn_deadline if last else None,
        ) | {"resync": True})
    return out


def table_snapshot(table_id: int, position: int | None) -> dict[str, Any] | None:
    """The snapshot a socket asks for with `hello`."""
    found = table_and_game(table_id)
    return snapshot_frame(found[1], found[0], position) if found is not None else None
