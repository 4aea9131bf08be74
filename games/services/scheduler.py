"""The turn scheduler: deadlines are data, and one loop finds the games that are due.

About once a second (`SCHEDULER_INTERVAL_SECONDS`) `tick()`:
1. checks that PostgreSQL and Redis answer; if either does not, the site cannot serve, so
   nothing is enforced and the outage is remembered;
2. when they answer again after an outage, moves every live turn deadline on by the outage's
   length, and to at least `AFTER_OUTAGE_SECONDS` from now (players do not lose turns to the
   server's own outage, nor to the seconds their pages take to notice it is over: a page
   reconnects with a back-off and learns of the new deadline from a frame) and tells each table its new
   deadline with a `clock` frame, and again `CLOCK_RETELL_SECONDS` later (after a Redis restart
   a frame published before a Daphne process has re-subscribed reaches nobody); the record of
   the last healthy tick is a row in PostgreSQL (`SchedulerState`), locked while it is read, so
   two schedulers never extend twice. A scheduler that did not see the outage (it started after
   it: with Redis as the broker a Redis restart kills the worker and its scheduler thread) still
   extends when PostgreSQL or Redis started after that last healthy tick; a long gap with both
   up all along only means no scheduler ran, and the deadlines that passed are enforced. A
   computer to move keeps its `due_at`, so its move is not put off by the extension;
3. claims the games whose `due_at` has passed (`FOR UPDATE SKIP LOCKED`, pushing their
   `due_at` a lease ahead so a second scheduler skips them and a scheduler that dies mid-way
   leaves them to the next), and hands each to `autoplay.handle_due` with the version it saw;
4. runs the matcher of "Gioca con persone" (`matchmaking.run_matcher`), which claims the
   waiting queue entries the same way (`FOR UPDATE SKIP LOCKED`), so schedulers in several
   workers never seat one person twice;
5. runs the tournaments (`tournaments.advance`): a scheduled event whose start has come closes
   its registration and pairs round 1; an event whose round has every table finished pairs the
   next round or ends. The events are claimed with `FOR UPDATE SKIP LOCKED` too.

The cost follows the work due, not the games in play: one indexed query per tick, and one for the
queue. The loop runs in every Celery worker (a thread started when the worker is ready, so timers
fire with the worker alone, beat or not), in `manage.py run_scheduler` for an operator who wants
it apart, and in the embedded single-process mode.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games.live import clock, frames, presence, transport
from games.models import Game, SchedulerState, Seat
from games.services import tournaments
from games.services.lobby import matchmaking
from games.services.play import autoplay
from games.services.table import seating

log = logging.getLogger(__name__)

LEASE_SECONDS = 10  # a claimed game is left alone by other schedulers this long
CLOCK_RETELL_SECONDS = 3  # the `clock` frames of an extension are sent again this much later
AFTER_OUTAGE_SECONDS = 15  # after an outage every turn has at least this long left
BATCH = 200  # games claimed per tick at most
CLOCK_ROW = "clock"


def interval() -> float:
    return max(0.05, float(settings.SCHEDULER_INTERVAL_SECONDS))


def outage_seconds() -> float:
    """A gap between healthy ticks longer than this is an outage (ticks come every interval)."""
    return max(3.0, 3 * interval())


class Scheduler:
    """One scheduler loop's memory: only whether it saw the services fail (a hint, not state:
    the authoritative record of the last healthy tick is `SchedulerState`)."""

    def __init__(self) -> None:
        self.saw_outage_since: datetime | None = None
        self.retell: tuple[float, list[int]] | None = None  # (monotonic time, game ids) of a retelling

    def tick(self) -> dict[str, Any]:
        """One pass (see the module docstring); returns what it did."""
        asked = timezone.now()
        healthy = _services_answer()
        # The time the services answered, not the time they were asked: with PostgreSQL down the
        # question waits in the connection pool (up to its timeout) and is answered when the
        # server is back. Taken before, the gap since the last healthy tick looked short, the
        # outage went unseen or was not extended for, and the turns that ran out meanwhile were
        # enforced at once. A question that waited that long is an outage seen, too.
        real_now = timezone.now()
        if not healthy:
            if self.saw_outage_since is None:
                self.saw_outage_since = asked
                log.warning("scheduler: PostgreSQL or Redis is not answering; deadlines are on hold")
            return {"healthy": False}
        if self.saw_outage_since is None and (real_now - asked).total_seconds() > outage_seconds():
            self.saw_outage_since = asked
        extended = _record_tick(real_now, outage_seen=self.saw_outage_since is not None)
        if self.saw_outage_since is not None:
            log.warning("scheduler: services answer again after %.1f s; %d deadlines moved on",
                        (real_now - self.saw_outage_since).total_seconds(), len(extended))
            self.saw_outage_since = None
        if extended:
            self.retell = (time.monotonic() + CLOCK_RETELL_SECONDS, [game_id for game_id, *_ in extended])
        elif self.retell is not None and time.monotonic() >= self.retell[0]:
            _retell_deadlines(self.retell[1])
            self.retell = None
        done = run_due(clock.now())
        return {"healthy": True, "extended": len(extended), **done, **_match_queue(), **_run_tournaments()}

    def run_forever(self, stop: threading.Event | None = None) -> None:
        stop = stop or threading.Event()
        while not stop.is_set():
            started = time.monotonic()
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - the loop must outlive any one failure
                log.exception("scheduler tick failed")
                if self.saw_outage_since is None:
                    self.saw_outage_since = timezone.now()
            finally:
                close_old_connections()
            stop.wait(max(0.0, interval() - (time.monotonic() - started)))


def _services_answer() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        connection.close()
        return False
    from django.core.cache import cache

    try:
        cache.get("burraco:scheduler:ping")
    except Exception:  # noqa: BLE001 - any failure of the cache means Redis is down
        return False
    return True


Extended = list[tuple[int, int, int, datetime | None]]  # (game, table, version, new deadline)


def _record_tick(real_now: datetime, *, outage_seen: bool) -> Extended:
    """Note this healthy tick; after an outage this scheduler saw, extend the deadlines by the
    time since the last healthy tick of any scheduler. Returns the games extended."""
    extended: Extended = []
    with transaction.atomic():
        row = SchedulerState.objects.select_for_update().filter(name=CLOCK_ROW).first()
        if row is None:  # the first tick ever; schedulers starting together may race to it
            SchedulerState.objects.get_or_create(name=CLOCK_ROW, defaults={"last_tick": real_now})
            return []
        gap = (real_now - row.last_tick).total_seconds()
        if gap > outage_seconds() and (outage_seen or _restarted_since(row.last_tick)):
            extended = _extend_deadlines(gap)
            if not outage_seen:
                log.warning("scheduler: PostgreSQL or Redis restarted since the last tick %.1f s ago; "
                            "%d deadlines moved on", gap, len(extended))
        row.last_tick = real_now
        row.save(update_fields=["last_tick"])
    if extended:
        _tell_new_deadlines(extended)
    return extended


def _restarted_since(moment: datetime) -> bool:
    """Did PostgreSQL or Redis start after `moment` (the last healthy tick of any scheduler)?

    A restart is an outage even when no running scheduler saw it: with Redis as the broker a
    Redis restart kills the Celery worker, and with it the scheduler thread that would have
    remembered the outage; the worker the supervisor starts next finds only a long gap since the
    last tick. A gap with both services up all along (no scheduler ran: every worker was down)
    is not an outage: the site served, and the deadlines that passed are enforced."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_postmaster_start_time()")
            if cursor.fetchone()[0] > moment:
                return True

    client = presence.redis_client()
    if client is None:
        return False
    try:
        uptime = float(client.info("server")["uptime_in_seconds"])
    except Exception:  # noqa: BLE001 - INFO refused (a managed Redis) or Redis gone again: no evidence
        return False
    # INFO counts whole seconds: the start was at most a second before now - uptime. Taking the
    # earliest it can have been, a Redis that was up all along is never mistaken for restarted.
    started = time.time() - uptime - 1
    return started > moment.timestamp()


def _extend_deadlines(seconds: float) -> Extended:
    """Every live deadline moved on by `seconds`, and to at least AFTER_OUTAGE_SECONDS from now.
    A game whose next move is the computer's keeps its `due_at` (a few seconds after the move
    was due, for the scheduler to play it if its task is lost, as a Redis broker's restart loses
    every queued task): the extension is for people, not a reason to put the computer's move off
    by the length of the outage."""
    shift = timedelta(seconds=seconds)
    floor = clock.now() + timedelta(seconds=AFTER_OUTAGE_SECONDS)
    computer_to_move = Seat.objects.filter(table_id=OuterRef("table_id"), position=OuterRef("to_move")).filter(
        Q(covered_by_computer=True) | ~Q(bot_level=""))
    games = list(Game.objects.select_for_update(of=("self",)).filter(finished=False, turn_deadline__isnull=False)
                 .annotate(computer_next=Exists(computer_to_move))
                 .only("id", "table_id", "version", "turn_deadline", "due_at", "to_move"))
    for game in games:
        game.turn_deadline = max(game.turn_deadline + shift, floor)
        if game.due_at is not None and not game.computer_next:
            # Never later than the deadline (an early look only re-plans).
            game.due_at = min(game.due_at + shift, game.turn_deadline)
    Game.objects.bulk_update(games, ["turn_deadline", "due_at"], batch_size=500)
    return [(g.pk, g.table_id, g.version, g.turn_deadline) for g in games]


def _tell_new_deadlines(extended: Extended) -> None:
    now = clock.now().isoformat()
    transport.deliver(
        (transport.all_group(table_id), frames.clock_frame(version, deadline, now, "outage"))
        for _game_id, table_id, version, deadline in extended
    )


def _retell_deadlines(game_ids: list[int]) -> None:
    """The `clock` frames of an extension once more, with each game's deadline as it is now."""
    _tell_new_deadlines(list(Game.objects.filter(pk__in=game_ids, finished=False, turn_deadline__isnull=False)
                             .values_list("id", "table_id", "version", "turn_deadline")))


_CLAIM_SQL = """
UPDATE games_game SET due_at = %s
 WHERE id IN (SELECT id FROM games_game
               WHERE NOT finished AND due_at IS NOT NULL AND due_at <= %s
               ORDER BY due_at LIMIT %s FOR UPDATE SKIP LOCKED)
RETURNING id, version
"""


def claim_due(now: datetime, limit: int = BATCH) -> list[tuple[int, int]]:
    """The games due by `now` (game clock), each leased to this scheduler for LEASE_SECONDS."""
    lease = now + timedelta(seconds=LEASE_SECONDS)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_CLAIM_SQL, [lease, now, limit])
            return [(int(i), int(v)) for i, v in cursor.fetchall()]
    # SQLite: one process, one scheduler. An idle tick only reads: a transaction would take the
    # database's write lock (IMMEDIATE) every second for nothing.
    due_games = (Game.objects.filter(finished=False, due_at__isnull=False, due_at__lte=now)
                 .order_by("due_at").values_list("id", "version"))
    if not due_games.exists():
        return []
    with transaction.atomic():
        due = list(due_games[:limit])
        Game.objects.filter(pk__in=[i for i, _v in due]).update(due_at=lease)
    return due


def run_due(now: datetime) -> dict[str, int]:
    """Hand every due game to `autoplay.handle_due`; one broken game does not stop the others."""

    done: dict[str, int] = {}
    for game_id, version in claim_due(now):
        try:
            outcome = autoplay.handle_due(game_id, version)
        except Exception:  # noqa: BLE001
            log.exception("scheduler: game %s v%s failed", game_id, version)
            outcome = "failed"
        done[outcome] = done.get(outcome, 0) + 1
    return done


def _match_queue() -> dict[str, int]:
    """One matcher pass, and the lobby list if the queue's matches left it for a tick; a failure
    is logged and does not stop the timers."""

    try:
        result = matchmaking.run_matcher()
        result["lobby"] = int(seating.announce_lobby_if_due())
    except Exception:  # noqa: BLE001 - the queue is rows: the next tick tries again
        log.exception("scheduler: the matcher failed")
        return {"queue_failed": 1}
    return {f"queue_{key}": value for key, value in result.items() if value}


def _run_tournaments() -> dict[str, int]:
    """One pass over the tournaments (games/services/tournaments.py): start the scheduled events
    whose time has come, pair the next round where the last table of a round has ended, finish
    the events played out. A failure is logged and does not stop the timers."""

    try:
        result = tournaments.advance(clock.now())
    except Exception:  # noqa: BLE001 - the tournaments are rows: the next tick tries again
        log.exception("scheduler: the tournaments pass failed")
        return {"tournaments_failed": 1}
    return {f"tournaments_{key}": value for key, value in result.items() if value}


_thread_lock = threading.Lock()
_thread: threading.Thread | None = None


def start_in_background() -> bool:
    """Run the loop in a daemon thread of this process, once per process; True if started now."""
    global _thread
    with _thread_lock:
        if _thread is not None and _thread.is_alive():
            return False
        _thread = threading.Thread(target=Scheduler().run_forever, name="turn-scheduler", daemon=True)
        _thread.start()
        return True
