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

from ..engine import Game as EngineGame
from ..engine import replay
from ..models import Game, Hand, Move, Seat, Table
from ..services import broadcast, clock, presence
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
INVITES_SESSION_KEY = "burraco_invites"


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


def invited_table_ids(session) -> set[int]:
    return set(session.get(INVITES_SESSION_KEY, []) if session is not None else [])


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


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def _presence_rows(seats: Iterable[tuple[int, bool, bool]], online: set[int]) -> list[dict[str, Any]]:
    """(position, computer, covered) per seat, in seat order, with who is online."""
    return [
        {"position": position, "online": computer or position in online, "covered_by_computer": covered,
         "computer": computer}
        for position, computer, covered in sorted(seats)
    ]


def presence_list(table: Table) -> list[dict[str, Any]]:
    return _presence_rows(((s.position, s.is_computer, s.covered_by_computer) for s in table.seats.all()),
                          presence.online_positions(table.pk))


def _seat_rows(table_id: int) -> list[tuple[int, int | None, bool, bool]]:
    """(position, user id, computer, covered) of every seat: two columns' worth, no models."""
    return [(p, u, bool(b), bool(c)) for p, u, b, c in _rows(_SEAT_ROWS_SQL, table_id)]


def _rows(sql: str, table_id: int) -> list[tuple]:
    """A few plain columns by a statement written here: what sockets ask for on every open and
    ping, where building an ORM query cost more than running it."""
    with connection.cursor() as cursor:
        cursor.execute(sql, [table_id])
        return cursor.fetchall()


_SEAT_ROWS_SQL = (f'SELECT position, user_id, bot_level, covered_by_computer FROM "{Seat._meta.db_table}"'
                  " WHERE table_id = %s")
_OPEN_SQL = (f'SELECT t.players, t.private, t.creator_id, g.id, t.status FROM "{Table._meta.db_table}" t'
             f' LEFT OUTER JOIN "{Game._meta.db_table}" g ON g.table_id = t.id WHERE t.id = %s')
_GAME_SQL = f'SELECT id, version FROM "{Game._meta.db_table}" WHERE table_id = %s'


def presence_frame(table_id: int, sockets: presence.Sockets | None = None) -> dict[str, Any]:
    """The table's presence frame; `sockets`: its live sockets when the caller has just read them."""
    return _presence_frame(_seat_rows(table_id), sockets if sockets is not None else presence.sockets_at(table_id))


def _presence_frame(seats: list[tuple[int, int | None, bool, bool]], sockets: presence.Sockets) -> dict[str, Any]:
    """Who is online at each seat, and how many watch (no names: spectators are anonymous)."""
    return {"type": "presence", "seats": _presence_rows(((p, b, c) for p, _u, b, c in seats), sockets.online),
            "watchers": sockets.watchers}


def table_frame(table: Table) -> dict[str, Any]:
    """The seating changed (someone sat, left, a computer joined, the game started or ended)."""
    table = get_table(table.pk) or table
    return {"type": "table", "table": table_summary(table)}


def engine_view(engine_game: EngineGame, position: int | None, version: int) -> dict[str, Any]:
    """The engine's view for one recipient, with the game version in place of the engine's
    per-hand action count (so a frame carries one version number, the game's)."""
    view = engine_game.view(position) if position is not None else engine_game.public_view()
    view["version"] = version
    return view


def snapshot_frame(game: Game | None, table: Table, position: int | None,
                   engine_game: EngineGame | None = None) -> dict[str, Any]:
    """Everything one socket needs to draw the table from scratch."""
    frame: dict[str, Any] = {
        "type": "snapshot",
        "version": None,
        "table": table_summary(table),
        "seat": position,
        "view": None,
        "deadline": None,
        "server_time": clock.now().isoformat(),
        "hand_number": None,
        "totals": None,
        "finished": False,
        "result": None,
        "presence": presence_list(table),
    }
    if game is None:
        return frame
    engine_game = engine_game or EngineGame.from_dict(game.state)
    frame.update(
        version=game.version,
        view=engine_view(engine_game, position, game.version),
        deadline=_iso(game.turn_deadline),
        hand_number=game.hand_number,
        totals=list(game.totals),
        finished=game.finished,
        result=game.result or None,
    )
    if game.hand_number > 1 and not game.finished:
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
    messages = [
        (broadcast.seat_group(table.pk, p), snapshot_frame(game, table, p, engine_game))
        for p in range(table.players)
    ]
    messages.append((broadcast.public_group(table.pk), snapshot_frame(game, table, None, engine_game)))
    return messages


def game_id_of(table_id: int) -> int | None:
    rows = _rows(_GAME_SQL, table_id)
    return rows[0][0] if rows else None


def open_socket(table_id: int, user, session, socket_id: str, max_sockets: int) -> dict[str, Any]:
    """Everything a table socket does when it opens, in one call: may this person be here, in
    which seat, at which game; count the socket in; the presence frame to send to the table
    (`refused`: "not_found", "forbidden" or "too_many"); and how many sockets the seat has now,
    this one included (`seat_sockets`)."""
    out: dict[str, Any] = {"refused": None, "players": None, "game_id": None, "position": None, "presence": None,
                           "status": None, "seat_sockets": 0}
    rows = _rows(_OPEN_SQL, table_id)
    if not rows:
        return out | {"refused": "not_found"}
    players, private, creator_id, game_id, status = rows[0]
    seats = _seat_rows(table_id)
    position = next((p for p, u, _b, _c in sorted(seats) if u == user.pk), None)
    if private and not (creator_id == user.pk or position is not None or table_id in invited_table_ids(session)):
        return out | {"refused": "forbidden"}
    if presence.sockets_of(table_id, user.pk) >= max_sockets:
        return out | {"refused": "too_many"}
    sockets = presence.connected(table_id, position, user.pk, socket_id)
    return out | {"players": players, "game_id": game_id, "position": position, "status": status,
                  "presence": _presence_frame(seats, sockets),
                  "seat_sockets": sockets.seats.get(position, 0) if position is not None else 0}


def current_version(table_id: int) -> int | None:
    """The version of the table's game (the `pong` carries it)."""
    rows = _rows(_GAME_SQL, table_id)
    return rows[0][1] if rows else None


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
    from ..services.play import event_frame

    earlier = list(Move.objects.filter(game=game, hand_number=game.hand_number, seq__lte=last_version)
                   .order_by("seq").values_list("action", flat=True))
    engine_game = replay(hand.deal, earlier)
    frames = []
    for move in missed:
        engine_game.apply(move.seat, move.action)
        last = move is missed[-1]
        frames.append(event_frame(
            version=move.seq, hand_number=game.hand_number, seat=move.seat, actor=move.actor, action=move.action,
            played=engine_game, position=position, deadline=game.turn_deadline if last else None,
        ) | {"resync": True})
    return frames


def table_snapshot(table_id: int, position: int | None) -> dict[str, Any] | None:
    """The snapshot a socket asks for with `hello`."""
    found = table_and_game(table_id)
    return snapshot_frame(found[1], found[0], position) if found is not None else None
