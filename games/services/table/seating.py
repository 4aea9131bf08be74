"""Tables before and at the start of play: create, sit, leave, computer seats, start.

Every write locks the table row first (`select_for_update`), so two people clicking the same seat
or the last seat filling while someone leaves resolve one at a time. Refusals raise `ServiceError`
with an Italian message (Django i18n) that the views show as they are.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from games.engine import PRESET_PLAYERS, Ruleset
from games.engine import Game as EngineGame
from games.live import frames, presence, transport
from games.models import BotLevel, Game, Hand, Seat, Table
from games.selectors.lobby import lobby_list
from games.selectors.rules import preset_label
from games.selectors.tables import snapshot_messages, table_frame
from games.services import notifications
from games.services.errors import ServiceError, message
from games.services.table import attendance, fairness, turn_plan, turns

log = logging.getLogger(__name__)


def private_unrated_message() -> str:
    """The refusal of a rated private table, in the current language (form and service)."""
    return message("private_unrated")


# ----------------------------------------------------------------------------- helpers


def _lock(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise ServiceError("no_table") from None


def _seats(table: Table) -> list[Seat]:
    return list(table.seats.select_related("user").order_by("position"))


def _require_waiting(table: Table) -> None:
    if table.status != Table.Status.WAITING:
        raise ServiceError("not_waiting")


def _seat_at(seats: list[Seat], position: int, table: Table) -> Seat:
    if not isinstance(position, int) or not 0 <= position < table.players:
        raise ServiceError("bad_position")
    return seats[position]


def _announce_now(*table_ids: int, lobby_now: bool = True) -> None:
    """The table pages and the lobby see the tables' new seating or status (call after commit):
    one `table` frame per table, then one lobby list for all of them (or, with `lobby_now`
    false, a mark that the next scheduler tick sends it: `announce_lobby_if_due`)."""
    messages = []
    for table_id in dict.fromkeys(table_ids):
        table = Table.objects.filter(pk=table_id).first()
        if table is not None:
            messages.append((transport.all_group(table_id), table_frame(table)))
    if lobby_now:
        messages.append((transport.LOBBY_GROUP, frames.lobby(lobby_list())))
    else:
        cache.set(LOBBY_DUE_KEY, 1, timeout=3600)
    transport.deliver(messages)
    _tell_followers(table_ids)


def _tell_followers(table_ids) -> None:
    """The "Amici" pages of whoever follows a person seated at these tables look again."""
    try:
        notifications.seating_changed(table_ids)
    except Exception:  # noqa: BLE001 - their pages look again by themselves within seconds
        log.warning("followers of tables %s not told", table_ids, exc_info=True)


LOBBY_DUE_KEY = "burraco:lobby:due"


def announce_lobby_if_due() -> bool:
    """Send the lobby list if a batch left it for later; True if this call sent it. Called by
    every scheduler tick: the first to take the mark sends (the cache's delete says who)."""
    if not cache.delete(LOBBY_DUE_KEY):
        return False
    transport.deliver([(transport.LOBBY_GROUP, frames.lobby(lobby_list()))])
    return True


@dataclass
class _Batch:
    tables: list[int] = field(default_factory=list)  # announced
    created: set[int] = field(default_factory=set)  # made in the batch: no page can show them yet


_batch: ContextVar[_Batch | None] = ContextVar("table_announcements", default=None)


@contextmanager
def batched_announcements(*, lobby_now: bool = True) -> Iterator[None]:
    """Inside this block the table services collect the tables they would announce, and the
    block's end announces them all at once with a single lobby list (the matchmaker opens many
    tables in one pass: three lobby lists per table cost more than the tables). Tables created
    in the block get no `table` frame (nobody can have their page open before the block ends).
    With `lobby_now` false the lobby list is left to the next scheduler tick (a burst of joins
    to the queue then costs one list a second, not one per table). Wrap the transaction in it,
    so the announcements leave after the commit; a block that raises announces nothing."""
    batch = _Batch()
    token = _batch.set(batch)
    try:
        yield
    finally:
        _batch.reset(token)
    if batch.tables:
        _announce_now(*[t for t in batch.tables if t not in batch.created], lobby_now=lobby_now)
        _tell_followers([t for t in batch.tables if t in batch.created])


def _announce(table_id: int, *, created: bool = False) -> None:
    batch = _batch.get()
    if batch is not None:
        batch.tables.append(table_id)
        if created:
            batch.created.add(table_id)
        return
    transaction.on_commit(lambda: _announce_now(table_id))


def _is_full(seats: list[Seat]) -> bool:
    return all(not s.is_empty for s in seats)


def check_players(ruleset: Ruleset) -> None:
    """Refuse a ruleset whose preset is not played by this many players (RULES §11:
    mano_unica and testa_a_testa are for two). Every service that opens a table calls it."""
    if not ruleset.preset_allows_players:
        raise ServiceError("two_players_only", preset=preset_label(ruleset.preset_name), other=preset_label("classico"))


# ----------------------------------------------------------------------------- services


def check_capacity() -> None:
    """Past the number of tables the site is sized for (`MAX_TABLES_IN_PLAY`, from the load
    benchmark's figures), new tables are refused, so the tables already in play keep their pace
    instead of all slowing down together."""
    limit = settings.MAX_TABLES_IN_PLAY
    if limit and Table.objects.filter(status__in=[Table.Status.PLAYING, Table.Status.WAITING]).count() >= limit:
        raise ServiceError("site_full")


def create_table(*, creator, ruleset: Ruleset, disconnect_grace_seconds: int | None = None,
                 rated: bool = False, private: bool = False) -> Table:
    """A new waiting table with its empty seats; the creator sits in seat 0.

    A private table is never rated: friends who choose their opponents could trade wins. The
    ruleset must suit its preset's player count: mano_unica and testa_a_testa are games for two
    (RULES §11), whatever the caller (the lobby form checks it too)."""
    if creator is None or not creator.is_authenticated:
        raise ServiceError("login_required:table")
    if rated and private:
        raise ServiceError("private_unrated")
    check_players(ruleset)
    check_capacity()
    grace = ruleset.grace_seconds if disconnect_grace_seconds is None else disconnect_grace_seconds
    with transaction.atomic():
        table = Table.objects.create(
            creator=creator,
            players=ruleset.players,
            preset=ruleset.preset_name,
            options=ruleset.to_dict() | {"grace_seconds": grace},
            draw_seconds=ruleset.draw_seconds,
            play_seconds=ruleset.play_seconds,
            disconnect_grace_seconds=grace,
            rated=rated,
            private=private,
        )
        Seat.objects.bulk_create(
            [Seat(table=table, position=p, user=creator if p == 0 else None) for p in range(ruleset.players)]
        )
        _announce(table.pk, created=True)
    return table


def sit(*, table_id: int, user, position: int) -> Seat:
    """Sit `user` at `position` (moving them if already seated here). With 4 players the seat
    picks the side: seats 0 and 2 play against 1 and 3. The last seat to fill starts the game."""
    with transaction.atomic():
        table = _lock(table_id)
        _require_waiting(table)
        seats = _seats(table)
        seat = _seat_at(seats, position, table)
        if seat.user_id == user.pk:
            return seat
        if not seat.is_empty:
            raise ServiceError("seat_taken")
        for other in seats:
            if other.user_id == user.pk:  # changing seat: free the old one
                other.user = None
                other.save(update_fields=["user"])
        seat.user = user
        seat.bot_level = ""
        seat.save(update_fields=["user", "bot_level"])
        _announce(table.pk)
        if _is_full(_seats(table)):
            start_game(table)
    return seat


def leave(*, table_id: int, user) -> None:
    """Stand up before the game starts. A table left with no person on it is abandoned."""
    with transaction.atomic():
        table = _lock(table_id)
        seats = _seats(table)
        mine = [s for s in seats if s.user_id == user.pk]
        if not mine:
            raise ServiceError("not_seated")
        if table.status != Table.Status.WAITING:
            raise ServiceError("already_started")
        for seat in mine:
            seat.user = None
            seat.save(update_fields=["user"])
        if not any(s.user_id for s in _seats(table)):
            table.status = Table.Status.ABANDONED
            table.finished_at = timezone.now()
            table.save(update_fields=["status", "finished_at"])
        _announce(table.pk)


def fill_with_computer(*, table_id: int, user, position: int, level: str) -> Seat:
    """A seated person puts a computer player of `level` in an empty seat."""
    if level not in BotLevel.values:
        raise ServiceError("bad_level")
    with transaction.atomic():
        table = _lock(table_id)
        _require_waiting(table)
        if table.rated:
            raise ServiceError("rated_no_computer")
        seats = _seats(table)
        if not any(s.user_id == user.pk for s in seats):
            raise ServiceError("not_seated:computer")
        seat = _seat_at(seats, position, table)
        if not seat.is_empty:
            raise ServiceError("seat_taken")
        seat.bot_level = level
        seat.save(update_fields=["bot_level"])
        _announce(table.pk)
        if _is_full(_seats(table)):
            start_game(table)
    return seat


def start_table(*, table_id: int, user) -> Game:
    """The creator (or anyone seated) starts a full table (normally it starts by itself)."""
    with transaction.atomic():
        table = _lock(table_id)
        _require_waiting(table)
        seats = _seats(table)
        if not any(s.user_id == user.pk for s in seats):
            raise ServiceError("not_seated")
        if not _is_full(seats):
            raise ServiceError("not_full")
        return start_game(table)


def play_against_computer(*, user, level: str, preset: str = "mano_unica") -> Table:
    """One click: a 2-player table of `preset` (its own rules: Classico is a match to 2005, the
    others a single hand), the computer at `level` in seat 1, started."""
    if level not in BotLevel.values:
        raise ServiceError("bad_level")
    if preset not in PRESET_PLAYERS or 2 not in PRESET_PLAYERS[preset]:
        raise ServiceError("bad_preset")
    with transaction.atomic():
        table = create_table(creator=user, ruleset=Ruleset.preset(preset, players=2))
        fill_with_computer(table_id=table.pk, user=user, position=1, level=level)
    table.refresh_from_db()
    return table


def start_game(table: Table, *, first_player: int | None = None) -> Game:
    """Deal hand 1 of the match at a full table (caller holds the table lock, inside atomic).
    The first player is drawn by lot unless given (a rematch swaps it)."""
    if table.status != Table.Status.WAITING or Game.objects.filter(table=table).exists():
        raise ServiceError("not_waiting")
    ruleset = Ruleset.from_dict(table.options)
    seats = _seats(table)
    # A duplicate tournament's table deals its round's first deal, from the round's first player.
    plan = fairness.planned(table.pk) if ruleset.hands is not None else None
    if plan is not None:
        seeds, first_player = plan.seeds_for(1, ruleset.players), plan.first_player
    else:
        seeds = fairness.draw_for(seats)
    engine_game = EngineGame.new(ruleset, rng=secrets.SystemRandom(), first_player=first_player, fair=seeds.fair)
    deadline = turns.deadline_for(engine_game, table)
    presence.clear_away(table.pk)
    mover = next(s for s in seats if s.position == engine_game.to_move)
    game = Game.objects.create(
        table=table,
        hand_number=engine_game.hand_number + 1,
        state=engine_game.to_dict(),
        totals=list(engine_game.totals),
        version=0,
        to_move=engine_game.to_move,
        turn_deadline=deadline,
        due_at=turns.due_at(table.pk, _mover(mover), deadline, table.disconnect_grace_seconds),
    )
    Hand.objects.create(game=game, number=engine_game.hand_number + 1, deal=engine_game.deal,
                        seed=seeds.fair.seed_hex, next_seed=seeds.next_seed)
    table.status = Table.Status.PLAYING
    table.started_at = timezone.now()
    table.save(update_fields=["status", "started_at"])
    _announce(table.pk)
    game_id = game.pk
    batch = _batch.get()
    # A table made in this batch has no socket yet (its pages open after the commit and ask
    # for a snapshot with `hello`): building one per seat would be work for nobody.
    anyone_there = batch is None or table.pk not in batch.created
    computer_first = mover.is_computer  # known here: after_change need not look it up

    def after() -> None:
        if anyone_there:
            transport.deliver(snapshot_messages(game_id))
        turns.after_change(game_id, 0, computer_next=computer_first)

    transaction.on_commit(after)
    return game


def _mover(seat: Seat):
    return turn_plan.SeatFacts(seat.position, seat.user_id, seat.bot_level, seat.covered_by_computer,
                           seat.consecutive_timeouts)


def take_seat_back(*, table_id: int, user) -> Seat:
    """"Sono tornato": the person takes their seat back from the computer that covered it."""
    with transaction.atomic():
        seat = (
            Seat.objects.select_for_update()
            .filter(table_id=table_id, user=user)
            .first()
        )
        if seat is None:
            raise ServiceError("not_seated")
        if seat.covered_by_computer or seat.consecutive_timeouts:
            seat.covered_by_computer = False
            seat.consecutive_timeouts = 0
            seat.save(update_fields=["covered_by_computer", "consecutive_timeouts"])
        game = Game.objects.select_for_update().filter(table_id=table_id, finished=False).first()
        if game is not None and game.to_move == seat.position and game.turn_deadline is not None:
            # The person plays this turn again: the scheduler's next look is their deadline.
            game.due_at = game.turn_deadline
            game.save(update_fields=["due_at"])

        def after() -> None:
            attendance.announce(table_id)

        transaction.on_commit(after)
    return seat
