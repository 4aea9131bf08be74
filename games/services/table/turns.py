"""The clock of a turn: its deadline, when the scheduler must look at the game, and the
computer's next move.

Deadlines are data. Every write of a game sets `Game.turn_deadline` (when the seat to move runs
out of time) and `Game.due_at` (when the server must next look at the game: that deadline, or
when an absent player's grace runs out, or, for a computer to move, a little after its move
should have come). The scheduler (`games.services.scheduler`) scans the index on `due_at` about
once a second; nothing is published per action. The only task queued on a change is the
computer's own move, and only when a computer (or the computer covering a person) is to move;
if that task is lost, `due_at` brings the scheduler to it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Protocol

from django.conf import settings

from games.live import clock, presence
from games.models import Game, Seat, Table
from games.services.table import turn_plan

log = logging.getLogger(__name__)

# A computer's move that has not come this long after it was due is played by the scheduler.
COMPUTER_SLACK_SECONDS = 5


class TurnTimes(Protocol):
    draw_seconds: int
    play_seconds: int


class Mover(Protocol):
    position: int
    user_id: int | None

    @property
    def computer_plays(self) -> bool: ...


def bot_delay() -> float:
    """Seconds a computer waits before each action (a human-like pause; 0 in tests)."""
    return max(0.0, float(settings.BOT_MOVE_DELAY_SECONDS))


def deadline_for(engine_game, table: TurnTimes, *, previous: datetime | None = None,
                 same_turn: bool = False) -> datetime | None:
    """When the seat to move runs out of time (`turn_plan.turn_deadline`, on the injectable clock
    and with the settings' `HAND_BREAK_SECONDS`); None once the hand is over."""
    if engine_game.hand_over:
        return None
    return turn_plan.turn_deadline(turn_plan.Position.of(engine_game), table, clock.now(),
                                   previous=previous if same_turn else None,
                                   hand_break_seconds=settings.HAND_BREAK_SECONDS)


def computer_wait_seconds() -> float:
    """How long after a change a computer's move is due before the scheduler plays it."""
    return bot_delay() + COMPUTER_SLACK_SECONDS


def due_at(table_id: int, mover: Mover, deadline: datetime | None, grace_seconds: int,
           online: set[int] | frozenset[int] | None = None) -> datetime | None:
    """When the scheduler must look at the game whose seat `mover` is to move (`online`: the
    seats online, if the caller has just looked them up); an absent person is noted away."""
    if deadline is None:
        return None
    if online is None and not mover.computer_plays:
        online = presence.online_positions(table_id)
    due, away = turn_plan.due_time(mover, deadline, online or set(), clock.now(), computer_wait_seconds())
    if not away:
        return due
    since = presence.mark_away(table_id, mover.position)
    return min(deadline, since + timedelta(seconds=grace_seconds))


def seat_left(table_id: int, position: int, since: datetime) -> None:
    """The last socket of `position` closed at `since`. If that seat is to move, the scheduler
    must look at the game when the player's grace runs out, not only at the turn's deadline:
    `due_at` was computed while the player was online, so it is pulled forward (never pushed
    back). Two queries, only when a seat's last socket goes."""

    grace = Table.objects.filter(pk=table_id).values_list("disconnect_grace_seconds", flat=True).first()
    if grace is None:
        return
    look = since + timedelta(seconds=grace)
    Game.objects.filter(table_id=table_id, finished=False, to_move=position, due_at__gt=look).update(due_at=look)


def after_change(game_id: int, version: int, *, computer_next: bool | None = None) -> None:
    """After a change is committed: queue the computer's move if a computer is to move.

    `computer_next` is what the writer already knows (None: look it up). A failure to queue is
    logged, not raised: the change is committed and `due_at` brings the scheduler to the game,
    brought forward to when the move is due (no slack: no task is coming to play it). Before, a
    move that met RabbitMQ restarting waited the whole `COMPUTER_SLACK_SECONDS` for the
    scheduler: 5.2 s after the broker was back in one fault run across hosts.
    """
    if computer_next is False:
        return
    try:
        if computer_next is None and not _computer_to_move(game_id, version):
            return
        from games import tasks  # here: the tasks import the autoplay, which imports this module

        tasks.computer_move.apply_async((game_id, version), countdown=bot_delay())
    except Exception:  # noqa: BLE001 - see docstring
        log.warning("could not queue the computer's move for game %s v%s; the scheduler will play it",
                    game_id, version, exc_info=True)
        _due_now(game_id, version)


def _due_now(game_id: int, version: int) -> None:
    """The scheduler plays the computer's move when it is due, not `COMPUTER_SLACK_SECONDS` later."""
    try:
        Game.objects.filter(pk=game_id, version=version, finished=False).update(
            due_at=clock.now() + timedelta(seconds=bot_delay()))
    except Exception:  # noqa: BLE001 - the database is away too: the slack still brings the scheduler
        log.warning("could not bring game %s's computer move forward", game_id, exc_info=True)


def _computer_to_move(game_id: int, version: int) -> bool:

    game = Game.objects.filter(pk=game_id).only("version", "finished", "to_move", "table_id").first()
    if game is None or game.finished or game.version != version or game.to_move is None:
        return False
    seat = Seat.objects.filter(table_id=game.table_id, position=game.to_move).first()
    return seat is not None and (seat.is_computer or seat.covered_by_computer)
