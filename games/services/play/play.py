"""Live play: the one door every action goes through (people, turn timers, computer players).

`apply_action` applies one action and returns what must be sent: the engine checks it, the move
log gets its row, the game its new state, version, clock and due time, in one atomic write.
`submit_action` is the same plus the delivery after the commit, for synchronous callers (timers,
computer players, views, tests); the consumers deliver on their event loop instead.

One writer per game, two ways:
- the hot path (PostgreSQL, an action that does not end the hand): one read of the game, its
  table and seats, the engine in memory, then one statement that updates the game *only if its
  version is still the one read* and inserts the move in the same round trip. Two tabs, a timer
  and a computer that race all read version v; exactly one write finds v and wins, the others
  find v+1 and are refused (`stale_version`) or, when they did not name a version, try again.
- the locked path (SQLite, the end of a hand, a person taking a seat back from the computer):
  `SELECT ... FOR UPDATE` on the game row and the ORM, inside one transaction.
Both ask the one pure planner (games/services/table/turn_plan.py) what the action means: the seat's
refusals, who moves next, the deadline and the due time, the bell, the computer to queue; they
differ only in how they read and write. Both leave the same rows, and a refused action changes
nothing on either.

`abandon_match` is the other way a match can end: a seated person gives it up, under the lock,
and the match finishes through the same `_finish_match` as one played to the end.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from burraco_site import dbasync
from burraco_site.dbthreads import admitted, run_db
from games.engine import Game as EngineGame
from games.engine import IllegalMove
from games.live import clock, frames, presence, transport
from games.live.transport import Messages
from games.models import Game, Hand, Move, Seat, Table
from games.selectors.tables import computer_played_for, get_table, snapshot_frame
from games.services import notifications, tournaments
from games.services.errors import ServiceError
from games.services.history import ratings
from games.services.history.analysis import queue_after_game
from games.services.table import attendance, fairness, turns
from games.services.table.seating import _announce_now
from games.services.table.turn_plan import (
    Position,
    SeatFacts,
    TableClock,
    Turn,
    TurnPlan,
    game_refusal,
    plan_turn,
    seat_refusal,
)

log = logging.getLogger(__name__)

ACTORS = {c.value for c in Move.Actor}
RETRIES = 5  # optimistic writes retried when no version was named and another writer won

__all__ = ["Applied", "IllegalMove", "ServiceError", "abandon_match", "apply_action", "submit_action"]


@dataclass
class Applied:
    """An accepted change, committed: its version, the frames to send, and what must follow."""

    game_id: int
    table_id: int
    version: int
    messages: Messages = field(default_factory=list)
    computer_next: bool | None = None  # None: not known here, `turns.after_change` looks it up
    announce_presence: bool = False
    announce_table: bool = False
    turn_user: int | None = None  # the turn passed to this person, who is not at the table: the bell
    seen: presence.Seen | None = None  # who is at the table, when the action looked it up

    def follow_up(self) -> None:
        """After the frames: presence and lobby news, and the computer's next move if it is due."""

        if self.announce_presence:
            attendance.announce(self.table_id)
        if self.announce_table:
            _announce_now(self.table_id)
        if self.turn_user is not None:

            try:
                notifications.your_turn(table_id=self.table_id, user_id=self.turn_user)
            except Exception:  # noqa: BLE001 - the move is committed; a lost bell line is no loss of play
                log.warning("table %s: the turn notice failed", self.table_id, exc_info=True)
        turns.after_change(self.game_id, self.version, computer_next=self.computer_next)

    @property
    def needs_follow_up(self) -> bool:
        return (self.announce_presence or self.announce_table or self.computer_next is not False
                or self.turn_user is not None)


def finish(applied: Applied) -> None:
    """Deliver and follow up, synchronously (call after the commit)."""
    transport.deliver(applied.messages)
    applied.follow_up()


def submit_action(*, game_id: int, seat: int, action: dict, actor: str = "person",
                  expected_version: int | None = None, user=None) -> int:
    """Apply `action` for `seat`, send the frames after the commit, and return the new version.

    Raises `IllegalMove` (the engine's codes) or `ServiceError` (not_playing, stale_version,
    not_your_seat, bad_actor) and changes nothing when the action is refused. For actor
    "person", `user` must be the person sitting in `seat`.
    """
    applied = apply_action(game_id=game_id, seat=seat, action=action, actor=actor,
                           expected_version=expected_version, user=user)
    transaction.on_commit(lambda: finish(applied))
    return applied.version


def apply_action(*, game_id: int, seat: int, action: dict, actor: str = "person",
                 expected_version: int | None = None, user=None, seen: presence.Seen | None = None) -> Applied:
    """Apply `action` and return what it produced, without sending anything (see the module
    docstring). Refusals raise `IllegalMove` or `ServiceError` and change nothing. `seen`: who is at the table as
    the acting person's socket last heard it, taken instead of looking presence up (the hot path
    only; timers and computers pass none)."""
    user_id = _checked(actor, action, user)
    if connection.vendor == "postgresql":
        applied = _run_steps(_hot_path(game_id, seat, action, actor, expected_version, user_id, seen,
                                       atomic=connection.in_atomic_block))
        if applied is not _LOCKED_PATH:
            return applied
    return _apply_locked(game_id, seat, action, actor, expected_version, user_id, seen)


async def apply_action_async(*, game_id: int, seat: int, action: dict, actor: str = "person",
                             expected_version: int | None = None, user=None,
                             seen: presence.Seen | None = None) -> Applied:
    """`apply_action` for a socket, on its event loop: the hot path's statements run on the
    loop's own PostgreSQL connection (burraco_site/dbasync.py) instead of a database thread,
    the same steps as `apply_action`'s; the locked path, when an action needs it, and any
    other database go to the thread pool as before."""
    if not dbasync.available():
        return await run_db(apply_action)(game_id=game_id, seat=seat, action=action, actor=actor,
                                          expected_version=expected_version, user=user, seen=seen)
    user_id = _checked(actor, action, user)
    with admitted():
        applied = await _run_steps_async(_hot_path(game_id, seat, action, actor, expected_version, user_id, seen,
                                                   atomic=False))
    if applied is not _LOCKED_PATH:
        return applied
    return await run_db(_apply_locked)(game_id, seat, action, actor, expected_version, user_id, seen)


def _checked(actor: str, action: Any, user) -> int | None:
    """Refuse what no path could apply; the acting person's id, if any."""
    if actor not in ACTORS:
        raise ServiceError("bad_actor")
    if not isinstance(action, dict):
        raise IllegalMove("bad_action")
    return user.pk if user is not None and user.is_authenticated else None


# ----------------------------------------------------------------------------- the hot path

_LOCKED_PATH = object()  # this action needs the locked path
_LOST_RACE = object()  # another writer got there first; read again

_SEATS_SQL = """(SELECT json_agg(json_build_array(s.position, s.user_id, s.bot_level, s.covered_by_computer,
                                         s.consecutive_timeouts) ORDER BY s.position)::text
          FROM games_seat s WHERE s.table_id = {table})"""

_READ_SQL = f"""
SELECT g.state::text, g.version, g.finished, g.table_id, g.hand_number, g.turn_deadline, g.due_at,
       t.draw_seconds, t.play_seconds, t.players, t.status, t.disconnect_grace_seconds,
       {_SEATS_SQL.format(table="g.table_id")}
FROM games_game g JOIN games_table t ON t.id = g.table_id
WHERE g.id = %s
"""

# The write, guarded by the version read. It returns the row's new xmin: PostgreSQL gives a row
# a new one on every update by anybody (the scheduler's lease, a seat's due time pulled forward,
# a test setting a position), so an unchanged xmin proves the row is still exactly as written.
_WRITE_SQL = """
WITH g AS (
    UPDATE games_game
       SET state = %s::jsonb, version = %s, to_move = %s, turn_deadline = %s, due_at = %s, updated_at = %s
     WHERE id = %s AND version = %s AND NOT finished {guard}
 RETURNING id, xmin::text AS token
), m AS (
    INSERT INTO games_move (game_id, seq, hand_number, seat, action, actor, created_at)
    SELECT id, %s, %s, %s, %s::jsonb, %s, %s FROM g
)
SELECT token FROM g
"""
_WRITE_FRESH_SQL = _WRITE_SQL.format(guard="")
# Acting on a remembered position (no read): the game row must be untouched since this process
# wrote it, and the seats exactly as they were read then (a person back, a seat now covered).
_WRITE_AGAIN_SQL = _WRITE_SQL.format(
    guard=f"AND xmin = %s::xid AND {_SEATS_SQL.format(table='games_game.table_id')} = %s")


@dataclass
class _Written:
    """A position this process wrote, kept to act on again without reading it back."""

    engine_game: EngineGame
    version: int
    token: str  # the row's xmin after the write
    seats_json: str
    table_id: int
    hand_number: int
    players: int
    timing: TableClock
    deadline: datetime | None
    due_at: datetime | None


class _Positions:
    """The games this process wrote last, by id (most recent last, at most `size`).

    The next action of a turn (the discard after the draw, a meld) usually comes through the same
    process: it starts from the position kept here instead of reading the game back, and its write
    is guarded by the row's xmin and the seats, so it only lands on the very row that was written
    (anybody else's write, even one that changed no version, sends it back to the read). An entry
    is taken out while it is used and put back only after a successful write, so one entry is
    never used by two threads and a refused or failed action leaves nothing behind. Nothing here
    is authoritative: losing it costs a read."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.entries: OrderedDict[int, _Written] = OrderedDict()

    def take(self, game_id: int) -> _Written | None:
        with self.lock:
            return self.entries.pop(game_id, None)

    def put(self, game_id: int, written: _Written) -> None:
        with self.lock:
            self.entries[game_id] = written
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


_written = _Positions()


@dataclass(frozen=True)
class _Fetch:
    """A step of the hot path: run this statement and answer with its first row (or None)."""

    sql: str
    params: list[Any]


@dataclass(frozen=True)
class _LookUpPresence:
    """A step of the hot path: answer with `presence.at_table(table_id)`."""

    table_id: int


Steps = Generator[_Fetch | _LookUpPresence, Any, Any]


def _run_steps(steps: Steps) -> Any:
    """Drive the hot path on this thread's Django connection."""
    with connection.cursor() as cursor:
        answer = None
        while True:
            try:
                step = steps.send(answer)
            except StopIteration as done:
                return done.value
            if isinstance(step, _LookUpPresence):
                answer = presence.at_table(step.table_id)
            else:
                cursor.execute(step.sql, step.params)
                answer = cursor.fetchone()


async def _run_steps_async(steps: Steps) -> Any:
    """Drive the hot path on one of the event loop's own connections (presence, which reads
    Redis through a synchronous client, still goes to the thread pool: rare, see _apply_once)."""
    async with dbasync.cursor() as cursor:
        answer = None
        while True:
            try:
                step = steps.send(answer)
            except StopIteration as done:
                return done.value
            if isinstance(step, _LookUpPresence):
                answer = await run_db(presence.at_table)(step.table_id)
            else:
                await cursor.execute(step.sql, step.params)
                answer = await cursor.fetchone()


def _hot_path(game_id: int, seat: int, action: dict, actor: str, expected_version: int | None,
              user_id: int | None, seen: presence.Seen | None, *, atomic: bool) -> Steps:
    """The optimistic write, tried again while another writer wins a race; `_LOCKED_PATH` when
    the action needs the locked path (or the races go on). `atomic`: inside a transaction."""
    for _attempt in range(RETRIES):
        applied = yield from _fast_attempt(game_id, seat, action, actor, expected_version, user_id, seen, atomic)
        if applied is not _LOST_RACE:
            return applied
    return _LOCKED_PATH


def _fast_attempt(game_id: int, seat: int, action: dict, actor: str, expected_version: int | None,
                  user_id: int | None, seen: presence.Seen | None, atomic: bool) -> Steps:
    # Only in autocommit: inside a transaction every write shares one xmin, so it proves nothing.
    kept = None if atomic else _written.take(game_id)
    if kept is not None and expected_version is not None and expected_version != kept.version:
        kept = None  # the client may know better (or be behind): the read decides
    if kept is not None:
        try:
            return (yield from _apply_once(game_id, seat, action, actor, expected_version, user_id, seen, kept, atomic))
        except (IllegalMove, ServiceError):
            pass  # refused on a position that may no longer be the game's: the read decides
    return (yield from _apply_once(game_id, seat, action, actor, expected_version, user_id, seen, None, atomic))


def _apply_once(game_id: int, seat: int, action: dict, actor: str, expected_version: int | None,
                user_id: int | None, seen: presence.Seen | None, kept: _Written | None, atomic: bool) -> Steps:
    """One optimistic try: read (unless `kept`), apply in memory, plan the turn, one guarded
    write. Returns the `Applied`, `_LOST_RACE` or `_LOCKED_PATH`; refusals raise. The statements
    are steps for a driver (`_run_steps`, `_run_steps_async`), so both run exactly this code."""
    if kept is None:
        row = yield _Fetch(_READ_SQL, [game_id])
        (state, version, finished, table_id, hand_number, deadline, due_at,
         draw_seconds, play_seconds, players, status, grace, seats_json) = row or (None,) * 13
        _refuse_if(game_refusal(found=row is not None, finished=finished, playing=status == Table.Status.PLAYING,
                                version=version, expected_version=expected_version))
        timing = TableClock(draw_seconds, play_seconds, grace)
    else:
        version, table_id, hand_number, players = kept.version, kept.table_id, kept.hand_number, kept.players
        deadline, due_at, seats_json, timing = kept.deadline, kept.due_at, kept.seats_json, kept.timing
    seats = [SeatFacts(*s) for s in json.loads(seats_json or "[]")]
    by_person = actor == Move.Actor.PERSON
    _refuse_if(seat_refusal(seats, seat, by_person=by_person, user_id=user_id))
    if by_person and any(s.position == seat and (s.covered or s.timeouts) for s in seats):
        return _LOCKED_PATH  # the person is back: the cover ends (a seat write)

    engine_game = kept.engine_game if kept is not None else EngineGame.from_json(state)
    before = Position.of(engine_game)
    engine_game.apply(seat, action)  # IllegalMove leaves everything untouched
    if engine_game.hand_over:
        return _LOCKED_PATH  # scoring, the next deal or the end of the match
    record = engine_game.actions[-1]
    new_version = version + 1
    turn = Turn(seat, by_person, seats, timing, before, Position.of(engine_game), deadline, due_at)
    now = clock.now()
    plan = _plan(turn, now, seen.online if seen is not None else None)
    looked = None
    if plan.needs_presence:
        seen = looked = yield _LookUpPresence(table_id)
        plan = _plan(turn, now, seen.online, looked=True)
    watched = seen.watched if seen is not None else True
    new_deadline, new_due = plan.deadline, _due(plan, table_id)
    now = timezone.now()  # the row's updated_at, on the real clock
    params = [engine_game.to_json(), new_version, plan.to_move, new_deadline, new_due, now, game_id, version]
    if kept is not None:
        params += [kept.token, seats_json]
    params += [new_version, hand_number, seat, json.dumps(record), actor, now]
    written = yield _Fetch(_WRITE_FRESH_SQL if kept is None else _WRITE_AGAIN_SQL, params)
    if written is None:
        if kept is not None:
            return _LOST_RACE  # the row changed since this process wrote it: read it
        if expected_version is not None:
            raise ServiceError("stale_version")
        return _LOST_RACE
    if not atomic:
        _written.put(game_id, _Written(engine_game, new_version, written[0], seats_json, table_id, hand_number,
                                       players, timing, new_deadline, new_due))
    messages = frames.event_messages(table_id, players, game_version=new_version, hand_number=hand_number, seat=seat,
                                     actor=actor, action=record, played=engine_game, deadline=new_deadline,
                                     spectators=watched)
    return Applied(game_id, table_id, new_version, messages, computer_next=plan.computer_next, turn_user=plan.bell,
                   seen=looked)


# ----------------------------------------------------------------------------- the turn, both paths


def _refuse_if(code: str | None) -> None:
    """Raise the refusal the planner found, if any (a seat the table lacks is the engine's bad action)."""
    if code == "bad_action":
        raise IllegalMove(code)
    if code is not None:
        raise ServiceError(code)


def _plan(turn: Turn, now: datetime, online: set[int] | frozenset[int] | None, *, looked: bool = False) -> TurnPlan:
    """`plan_turn` at `now` (the injectable clock's) with the settings' timers, read only when they
    matter. `online` is what the acting socket heard (hearsay, trusted only as far as the planner
    trusts it) or, `looked`, what the presence store just said."""
    after = turn.after
    return plan_turn(turn, now=now, online=online if looked else None, heard=None if looked else online,
                     hand_break_seconds=settings.HAND_BREAK_SECONDS if after is not None and after.hand_break else 0,
                     computer_wait_seconds=(turns.computer_wait_seconds()
                                            if any(s.computer_plays for s in turn.seats) else 0.0))


def _due(plan: TurnPlan, table_id: int) -> datetime | None:
    """The plan's due time, once a seat it finds away is noted away in the presence store
    (which keeps the moment the seat was first missed)."""
    if plan.away is None:
        return plan.due_at
    return plan.due_when_away(presence.mark_away(table_id, plan.away))


# ----------------------------------------------------------------------------- the locked path


def _apply_locked(game_id: int, seat: int, action: dict, actor: str, expected_version: int | None,
                  user_id: int | None, seen: presence.Seen | None = None) -> Applied:
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        table = Table.objects.get(pk=game.table_id) if game is not None else None
        _refuse_if(game_refusal(found=game is not None, finished=game is not None and game.finished,
                                playing=table is not None and table.status == Table.Status.PLAYING,
                                version=game.version if game is not None else None,
                                expected_version=expected_version))
        seat_rows = {s.position: s for s in Seat.objects.filter(table_id=table.pk)}
        by_person = actor == Move.Actor.PERSON
        _refuse_if(seat_refusal([_facts(s) for s in seat_rows.values()], seat, by_person=by_person,
                                user_id=user_id))

        engine_game = EngineGame.from_dict(game.state)
        before = Position.of(engine_game)
        engine_game.apply(seat, action)  # IllegalMove leaves everything untouched
        record = engine_game.actions[-1]
        version = game.version + 1

        Move.objects.create(
            game=game, seq=version, hand_number=game.hand_number, seat=seat, action=record, actor=actor
        )
        cover_ended = _end_cover(seat_rows[seat], actor)

        finished_hand: dict[str, Any] | None = None
        next_game: EngineGame | None = None
        if engine_game.hand_over:
            finished_hand, next_game = _close_hand(game, table, engine_game, seat_rows.values())
        live = next_game or engine_game
        game.state = live.to_dict()
        game.version = version
        turn = Turn(seat, by_person, [_facts(s) for s in seat_rows.values()],
                    TableClock(table.draw_seconds, table.play_seconds, table.disconnect_grace_seconds), before,
                    None if game.finished else Position.of(live), game.turn_deadline, game.due_at,
                    new_hand=next_game is not None, cover_ended=cover_ended)
        now = clock.now()
        plan = _plan(turn, now, seen.online if seen is not None else None)
        if plan.needs_presence:
            plan = _plan(turn, now, presence.online_positions(table.pk), looked=True)
        game.to_move, game.turn_deadline, game.due_at = plan.to_move, plan.deadline, _due(plan, table.pk)
        game.save()

        messages = _change_messages(
            game, table, seat=seat, actor=actor, action=record, played=engine_game,
            finished_hand=finished_hand, next_game=next_game, spectators=seen.watched if seen is not None else True,
        )
    return Applied(game.pk, table.pk, version, messages, computer_next=plan.computer_next,
                   announce_presence=cover_ended, announce_table=game.finished, turn_user=plan.bell)


def _facts(seat: Seat) -> SeatFacts:
    return SeatFacts(seat.position, seat.user_id, seat.bot_level, seat.covered_by_computer, seat.consecutive_timeouts)


def _end_cover(seat_row: Seat, actor: str) -> bool:
    """A person's own move ends the computer's cover of their seat; True when it did."""
    if actor != Move.Actor.PERSON or not (seat_row.consecutive_timeouts or seat_row.covered_by_computer):
        return False
    seat_row.consecutive_timeouts = 0
    seat_row.covered_by_computer = False
    seat_row.save(update_fields=["consecutive_timeouts", "covered_by_computer"])
    return True


def _close_hand(game: Game, table: Table, engine_game: EngineGame,
                seats: Iterable[Seat]) -> tuple[dict[str, Any], EngineGame | None]:
    """Score the hand just over; deal the next one (from a fresh seed with the seats' client
    seeds, docs/fairness.md) or finish the match."""
    score = engine_game.score()
    match = engine_game.match
    now = timezone.now()
    Hand.objects.filter(game=game, number=game.hand_number).update(score=score, finished_at=now)
    game.totals = list(match.totals)
    finished_hand = {
        "hand_number": game.hand_number,
        "score": score,
        "totals": list(match.totals),
        "end_reason": engine_game.end_reason,
        "closed_by": engine_game.closed_by,
        "match_over": match.finished,
        "winner_side": match.winner if match.finished else None,
    }
    if match.finished:
        _finish_match(game, table, winner_side=match.winner, now=now, result={
            "totals": list(match.totals),
            "winner_side": match.winner,
            "hands": game.hand_number,
            "target": match.target,
            "end_reason": engine_game.end_reason,
        })
        return finished_hand, None
    plan = fairness.planned(table.pk) if engine_game.ruleset.hands is not None else None
    if plan is not None:  # a duplicate round's next deal, the same at every table of the round
        seeds = plan.seeds_for(game.hand_number + 1, engine_game.players)
    else:
        committed = Hand.objects.filter(game=game, number=game.hand_number).values_list("next_seed",
                                                                                       flat=True).first()
        seeds = fairness.draw_for(seats, committed or "")
    next_game = engine_game.next_hand(secrets.SystemRandom(), fair=seeds.fair)
    game.hand_number = next_game.hand_number + 1
    Hand.objects.create(game=game, number=game.hand_number, deal=next_game.deal,
                        seed=seeds.fair.seed_hex, next_seed=seeds.next_seed)
    return finished_hand, next_game


def _count_moves(game: Game) -> None:
    """Each seat's own and covered moves of the match, from the move log (ratings read them):
    counted once at the end rather than written on every move."""
    counts = Move.objects.filter(game=game).values("seat", "actor").annotate(n=Count("id"))
    own: dict[int, int] = {}
    covered: dict[int, int] = {}
    for row in counts:
        target = own if row["actor"] == Move.Actor.PERSON else covered
        target[row["seat"]] = target.get(row["seat"], 0) + row["n"]
    seats = list(Seat.objects.filter(table_id=game.table_id))
    for seat in seats:
        seat.own_moves = own.get(seat.position, 0)
        seat.covered_moves = covered.get(seat.position, 0) if seat.user_id is not None else 0
    Seat.objects.bulk_update(seats, ["own_moves", "covered_moves"])


def _finish_match(game: Game, table: Table, *, winner_side: int | None, result: dict[str, Any], now) -> None:
    """The one way a match ends (played out or abandoned): the game and its table are finished
    and the ratings move, inside the caller's transaction with the game row locked."""
    game.finished = True
    game.winner_side = winner_side
    game.finished_at = now
    game.result = result
    game.to_move = None
    game.turn_deadline = None
    game.due_at = None
    table.status = Table.Status.FINISHED
    table.finished_at = now
    table.save(update_fields=["status", "finished_at"])
    game.save()  # ratings read the finished game
    _count_moves(game)
    ratings.record_match_result(game)
    tournaments.record_result(game, table)  # a tournament table's result, in the same commit
    game_id = game.pk
    transaction.on_commit(lambda: _queue_analysis(game_id))


def _queue_analysis(game_id: int) -> None:
    """Analisi della partita, once the match is committed (games/services/history/analysis.py)."""

    try:
        queue_after_game(game_id)
    except Exception:  # the broker down must not fail the move that ended the match
        logging.getLogger("games.analysis").exception("Could not queue the analysis of game %s", game_id)


def abandon_match(*, table_id: int, user) -> int:
    """`user`, seated at the table, abandons the match in play; return the game's new version.

    The match ends at once and the abandoning player's side loses it (with four players, both
    partners); on a rated table that is a rated loss (`ratings.record_match_result`). The hand in
    play is left unscored: `Game.result["totals"]` are the totals of the hands played to the end,
    and the interrupted hand keeps `Hand.score` = None (its moves stay in the log and replay).
    No Move row is written (abandoning is not an engine action), but the version goes up by one
    so that every timer or computer task scheduled for the old version is stale.

    Raises `ServiceError` (codes no_table, not_seated, not_started, already_finished) and changes
    nothing when refused.
    """
    if user is None or not user.is_authenticated:
        raise ServiceError("not_seated")
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(table_id=table_id).first()
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            raise ServiceError("no_table")
        seat_row = Seat.objects.filter(table_id=table_id, user=user).order_by("position").first()
        if seat_row is None:
            raise ServiceError("not_seated")
        if game is None:
            raise ServiceError("not_started")
        if game.finished or table.status != Table.Status.PLAYING:
            raise ServiceError("already_finished")

        now = timezone.now()
        version = game.version + 1
        winner = 1 - seat_row.side
        target = EngineGame.from_dict(game.state).ruleset.target
        Hand.objects.filter(game=game, number=game.hand_number, finished_at__isnull=True).update(finished_at=now)
        game.abandoned_by = user
        game.version = version
        _finish_match(game, table, winner_side=winner, now=now, result={
            "totals": list(game.totals),
            "winner_side": winner,
            "hands": game.hand_number,
            "target": target,
            "end_reason": "abandoned",
            "abandoned_by": user.get_username(),
            "abandoned_seat": seat_row.position,
        })
        applied = Applied(game.pk, table.pk, version, _abandon_messages(game, table, seat_row.position,
                                                                         user.get_username()),
                          computer_next=False, announce_table=True)
        transaction.on_commit(lambda: finish(applied))
    return version


# ----------------------------------------------------------------------------- frames
# Built per recipient in games/live/frames.py; the snapshots read the table (selectors) here.


def _abandon_messages(game: Game, table: Table, position: int, username: str) -> Messages:
    """Per recipient: the `match_over` frame, then the final snapshot (finished, with the result)."""
    fresh_table = get_table(table.pk)
    engine_game = EngineGame.from_dict(game.state)
    over = frames.match_over_abandoned(game, position, username, computer_played_for(fresh_table.seats.all()))
    return frames.abandon_messages(table.pk, table.players, over,
                                   lambda seat: snapshot_frame(game, fresh_table, seat, engine_game))


def _change_messages(game: Game, table: Table, *, seat: int, actor: str, action: dict[str, Any],
                     played: EngineGame, finished_hand: dict[str, Any] | None,
                     next_game: EngineGame | None, spectators: bool = True) -> Messages:
    """Per recipient, in order: the event (with that recipient's view of the position the action
    produced), then at the end of a hand the scoring, then the next hand's snapshot."""
    snapshot_for = None
    computer_for = None
    if finished_hand is not None:
        fresh_table = get_table(table.pk)  # read after the match's moves were counted (_finish_match)
        if game.finished:
            computer_for = computer_played_for(fresh_table.seats.all())

        def snapshot_for(position: int | None) -> dict[str, Any]:
            return snapshot_frame(game, fresh_table, position, next_game or played)

    hand_number = finished_hand["hand_number"] if finished_hand else game.hand_number
    return frames.change_messages(table.pk, table.players, game_version=game.version, hand_number=hand_number,
                                  seat=seat, actor=actor, action=action, played=played, deadline=game.turn_deadline,
                                  finished_hand=finished_hand, snapshot_for=snapshot_for, spectators=spectators,
                                  computer_for=computer_for)
