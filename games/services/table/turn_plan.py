"""The plan of a turn, as plain data: what an accepted action means for the game's clock and seats.

Both ways an action is written (play.py's hot path, one read and one version-guarded write on
PostgreSQL, and its locked path, `SELECT ... FOR UPDATE` and the ORM) read the game, let the
engine apply the action, and then need the same answers: may this seat act at all, who moves
next, when that seat runs out of time (the deadline), when the scheduler must look at the game
(the due time), whether the bell rings for a person who is not looking, and whether a computer's
move must be queued. `plan_turn` gives those answers from what was read; the drivers differ only
in how they read and write. No I/O here, no Django: the presence store and the clock are the
drivers' (they pass `now` and the seats online), and a plan that needs presence says so.

>>> from datetime import datetime, timezone
>>> now = datetime(2026, 12, 7, 10, 0, tzinfo=timezone.utc)
>>> seats = (SeatFacts(0, 7, "", False, 0), SeatFacts(1, 8, "", False, 0))
>>> timing = TableClock(draw_seconds=30, play_seconds=90, disconnect_grace_seconds=60)

Anna (seat 0, user 7) discards: the turn passes to Bruno, whose socket is open.

>>> turn = Turn(seat=0, by_person=True, seats=seats, timing=timing, before=Position(0, "play"),
...             after=Position(1, "draw"), deadline=None, due_at=None)
>>> plan_turn(turn, now=now).needs_presence
True
>>> plan = plan_turn(turn, now=now, online=frozenset({0, 1}))
>>> plan.to_move, plan.deadline.time(), plan.due_at.time(), plan.bell, plan.computer_next
(1, datetime.time(10, 0, 30), datetime.time(10, 0, 30), None, False)

Bruno is away: the bell rings for him, and the scheduler looks again when his grace runs out
(the driver notes him away in the presence store and gets the moment he was first missed).

>>> plan = plan_turn(turn, now=now, online=frozenset({0}))
>>> plan.bell, plan.away
(8, 1)
>>> plan.due_when_away(now).time()
datetime.time(10, 0, 30)

Anna draws and plays on: her deadline becomes the rest of the turn, and nobody's presence is
needed (the person who acted is at the table).

>>> turn = Turn(seat=0, by_person=True, seats=seats, timing=timing, before=Position(0, "draw"),
...             after=Position(0, "play"), deadline=now, due_at=now)
>>> plan = plan_turn(turn, now=now)
>>> plan.needs_presence, plan.deadline.time(), plan.due_at.time()
(False, datetime.time(10, 1, 30), datetime.time(10, 1, 30))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class SeatFacts:
    """What the play path needs of a seat (read with the game in the same query on the hot path)."""

    position: int
    user_id: int | None
    bot_level: str
    covered: bool
    timeouts: int

    @property
    def computer_plays(self) -> bool:
        return bool(self.bot_level) or self.covered


@dataclass(frozen=True)
class TableClock:
    """The table's timers, in seconds."""

    draw_seconds: int
    play_seconds: int
    disconnect_grace_seconds: int


@dataclass(slots=True)
class Position:
    """As much of a hand's position as the clock needs: whose turn, its phase ("draw" or
    "play"), and whether it is the first draw of a hand after the first (`hand_break`: the
    players are reading the last hand's scoring when the new deal arrives)."""

    to_move: int
    phase: str
    hand_break: bool = False

    @classmethod
    def of(cls, engine_game) -> Position:
        """The position of an engine game (games.engine.Game)."""
        first_draw = engine_game.phase == "draw" and engine_game.hand_number > 0 and not engine_game.actions
        return cls(engine_game.to_move, engine_game.phase, first_draw)


@dataclass(slots=True)
class Turn:
    """What was read and played: the input of `plan_turn`.

    `seat` acted (`by_person`: the person sitting there, not a timer or a computer); `seats` are
    the table's seats as they stand after the action (a cover the person's move ended, ended:
    `cover_ended`); `before` is the position the action was played on, `after` the one the
    game goes on from (None: the match is over), `new_hand` True when that is the next hand's
    deal; `deadline` and `due_at` are the game's as read."""

    seat: int
    by_person: bool
    seats: Sequence[SeatFacts]
    timing: TableClock
    before: Position
    after: Position | None
    deadline: datetime | None
    due_at: datetime | None
    new_hand: bool = False
    cover_ended: bool = False


@dataclass(slots=True)
class TurnPlan:
    """What the write must set and what must follow it.

    `to_move`, `deadline` and `due_at` go on the game row (all None once the match is over);
    `computer_next`: a computer (or the computer covering a person) moves next, its move is to
    be queued; `bell`: the person (user id) whose turn it now is and who is not at the table;
    `away`: the seat to note away in the presence store, whose due time is then
    `due_when_away(since)`; `needs_presence`: nothing else is decided until the driver passes
    the seats online (`plan_turn(..., online=...)`)."""

    to_move: int | None
    deadline: datetime | None
    due_at: datetime | None
    computer_next: bool = False
    bell: int | None = None
    away: int | None = None
    grace_seconds: int = 0
    needs_presence: bool = False

    def due_when_away(self, since: datetime) -> datetime | None:
        """The due time of a seat away since `since`: the deadline, or its grace's end if sooner."""
        if self.deadline is None:
            return None
        return min(self.deadline, since + timedelta(seconds=self.grace_seconds))


def game_refusal(*, found: bool, finished: bool, playing: bool, version: int | None,
                 expected_version: int | None) -> str | None:
    """The code refusing any action on the game as read, or None.

    >>> game_refusal(found=True, finished=False, playing=True, version=4, expected_version=3)
    'stale_version'
    >>> game_refusal(found=True, finished=True, playing=False, version=4, expected_version=None)
    'not_playing'
    """
    if not found or finished or not playing:
        return "not_playing"
    if expected_version is not None and expected_version != version:
        return "stale_version"
    return None


def seat_refusal(seats: Sequence[SeatFacts], seat: int, *, by_person: bool, user_id: int | None) -> str | None:
    """The code refusing `seat`'s action, or None: a seat the table does not have is a bad action
    (the engine's code), and a person plays only for their own seat.

    >>> seats = (SeatFacts(0, 7, "", False, 0), SeatFacts(1, None, "medio", False, 0))
    >>> seat_refusal(seats, 1, by_person=True, user_id=7), seat_refusal(seats, 1, by_person=False, user_id=None)
    ('not_your_seat', None)
    >>> seat_refusal(seats, 3, by_person=False, user_id=None)
    'bad_action'
    """
    row = next((s for s in seats if s.position == seat), None)
    if row is None:
        return "bad_action"
    if by_person and (user_id is None or row.user_id != user_id):
        return "not_your_seat"
    return None


def turn_deadline(position: Position, timing, now: datetime, *, previous: datetime | None = None,
                  hand_break_seconds: int = 0) -> datetime:
    """When the seat to move runs out of time: the draw timer while it must draw, the timer for
    the rest of the turn after; `previous`, the deadline of the same turn, is kept once the seat
    has drawn (the rest of a turn does not restart). The first draw of a hand after the first
    gets `hand_break_seconds` more. `timing` has `draw_seconds` and `play_seconds`.

    >>> from datetime import datetime, timezone
    >>> now = datetime(2026, 12, 7, 10, 0, tzinfo=timezone.utc)
    >>> timing = TableClock(30, 90, 60)
    >>> turn_deadline(Position(1, "draw", hand_break=True), timing, now, hand_break_seconds=15).time()
    datetime.time(10, 0, 45)
    >>> turn_deadline(Position(1, "play"), timing, now, previous=now).time()
    datetime.time(10, 0)
    """
    if previous is not None and position.phase != "draw":
        return previous
    seconds = timing.draw_seconds if position.phase == "draw" else timing.play_seconds
    if position.phase == "draw" and position.hand_break:
        seconds += hand_break_seconds
    return now + timedelta(seconds=seconds)


def due_time(mover: SeatFacts, deadline: datetime | None, online, now: datetime,
             computer_wait_seconds: float) -> tuple[datetime | None, bool]:
    """When the scheduler must look at a game whose seat `mover` is to move, and whether that seat
    is away (a person not among `online`: the caller notes it and takes the sooner of the
    deadline and the end of its grace, `TurnPlan.due_when_away`). A computer's move is due
    `computer_wait_seconds` after `now` (its pause and some slack), not at the deadline.

    >>> from datetime import datetime, timezone
    >>> now = datetime(2026, 12, 7, 10, 0, tzinfo=timezone.utc)
    >>> due_time(SeatFacts(1, None, "medio", False, 0), now, set(), now, 5.0)[0].time()
    datetime.time(10, 0, 5)
    >>> due_time(SeatFacts(1, 8, "", False, 0), now, {0}, now, 5.0)[1]
    True
    """
    if deadline is None:
        return None, False
    if mover.computer_plays:
        return now + timedelta(seconds=computer_wait_seconds), False
    if mover.user_id is None or mover.position in online:
        return deadline, False
    return deadline, True


def plan_turn(turn: Turn, *, now: datetime, online: frozenset[int] | set[int] | None = None,
              heard: frozenset[int] | set[int] | None = None, hand_break_seconds: int = 0,
              computer_wait_seconds: float = 0.0) -> TurnPlan:
    """Plan the turn after an accepted action (see the module docstring).

    `online`: the seats online, looked up; `heard`: the seats online as the acting socket last
    heard it, trusted only when it says the next mover is there or that no person's presence
    matters (nobody is marked away or rung for their turn on hearsay). When neither settles it,
    the plan `needs_presence`. Within a turn a person's due time is kept (unless the computer
    covered that turn until now); the person who acted and plays on is at the table by definition.
    """
    after = turn.after
    if after is None:
        return TurnPlan(None, None, None)
    same_turn = not turn.new_hand and after.to_move == turn.before.to_move and turn.before.phase != "draw"
    deadline = turn_deadline(after, turn.timing, now, previous=turn.deadline if same_turn else None,
                             hand_break_seconds=hand_break_seconds)
    mover = next(s for s in turn.seats if s.position == after.to_move)
    grace = turn.timing.disconnect_grace_seconds
    kept_due = turn.due_at if same_turn and not turn.cover_ended and not mover.computer_plays else None
    if mover.position == turn.seat and turn.by_person and not turn.new_hand:
        return TurnPlan(after.to_move, deadline, kept_due or deadline, grace_seconds=grace)
    if online is None:
        if heard is not None and (mover.computer_plays or not mover.user_id or mover.position in heard):
            online = heard
        else:
            return TurnPlan(after.to_move, deadline, None, computer_next=mover.computer_plays, grace_seconds=grace,
                            needs_presence=True)
    away = False
    if kept_due is not None:
        due = kept_due
    else:
        due, away = due_time(mover, deadline, online, now, computer_wait_seconds)
    bell = None
    if (mover.user_id and not mover.computer_plays and (mover.position != turn.seat or turn.new_hand)
            and mover.position not in online):
        bell = mover.user_id  # their turn, and they are not looking: the bell says so
    return TurnPlan(after.to_move, deadline, due, computer_next=mover.computer_plays, bell=bell,
                    away=mover.position if away else None, grace_seconds=grace)
