"""The turn planner (games/services/table/turn_plan.py) on plain data: no database, no Redis, no clock.

Both write paths of play.py call `plan_turn`; these cases pin what it decides (the deadline and
the due time, the bell, who moves next, whether a computer is to be queued, the refusals of a
seat) so that the two drivers cannot drift apart again."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta

from games.services.table import turn_plan
from games.services.table.turn_plan import (
    Position,
    SeatFacts,
    TableClock,
    Turn,
    due_time,
    game_refusal,
    plan_turn,
    seat_refusal,
    turn_deadline,
)

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
TIMING = TableClock(draw_seconds=30, play_seconds=90, disconnect_grace_seconds=60)
ANNA, BRUNO = SeatFacts(0, 7, "", False, 0), SeatFacts(1, 8, "", False, 0)
COMPUTER = SeatFacts(1, None, "medio", False, 0)


def seconds(value: datetime | None) -> float | None:
    return None if value is None else (value - NOW).total_seconds()


def turn(**changes) -> Turn:
    """Anna (seat 0) discards and the turn passes to seat 1, unless `changes` say otherwise."""
    fields = dict(seat=0, by_person=True, seats=(ANNA, BRUNO), timing=TIMING, before=Position(0, "play"),
                  after=Position(1, "draw"), deadline=NOW + timedelta(seconds=20), due_at=NOW + timedelta(seconds=20))
    fields.update(changes)
    return Turn(**fields)


def test_the_doctests_run():
    assert doctest.testmod(turn_plan).failed == 0


def test_the_turn_passes_to_a_person_at_the_table():
    plan = plan_turn(turn(), now=NOW, online={0, 1})
    assert (plan.to_move, seconds(plan.deadline), seconds(plan.due_at)) == (1, 30, 30)
    assert (plan.bell, plan.away, plan.computer_next, plan.needs_presence) == (None, None, False, False)


def test_the_turn_passes_to_an_absent_person_the_bell_rings_and_the_grace_counts():
    plan = plan_turn(turn(), now=NOW, online={0})
    assert (plan.bell, plan.away, seconds(plan.deadline)) == (7 + 1, 1, 30)
    # Away for a while already: the grace ends before the deadline, and brings the scheduler then.
    assert seconds(plan.due_when_away(NOW - timedelta(seconds=45))) == 15
    assert seconds(plan.due_when_away(NOW)) == 30  # the deadline comes first


def test_presence_is_asked_for_unless_what_the_socket_heard_settles_it():
    assert plan_turn(turn(), now=NOW).needs_presence
    # Hearsay that the next mover is there is trusted; hearsay that they are away is not.
    assert not plan_turn(turn(), now=NOW, heard=frozenset({0, 1})).needs_presence
    assert plan_turn(turn(), now=NOW, heard=frozenset({0})).needs_presence
    # A computer to move needs nobody's presence.
    plan = plan_turn(turn(seats=(ANNA, COMPUTER)), now=NOW, heard=frozenset())
    assert not plan.needs_presence and plan.computer_next


def test_a_computer_moves_next_its_move_is_due_after_its_pause():
    plan = plan_turn(turn(seats=(ANNA, COMPUTER)), now=NOW, online={0}, computer_wait_seconds=5.5)
    assert (plan.computer_next, seconds(plan.due_at), plan.bell, plan.away) == (True, 5.5, None, None)
    covered = SeatFacts(1, 8, "", True, 2)  # a person the computer covers: no bell, the computer plays
    plan = plan_turn(turn(seats=(ANNA, covered)), now=NOW, online=set(), computer_wait_seconds=5)
    assert (plan.computer_next, seconds(plan.due_at), plan.bell) == (True, 5, None)


def test_the_person_who_drew_plays_on_with_the_rest_of_the_turn_and_no_presence():
    drew = turn(before=Position(0, "draw"), after=Position(0, "play"), deadline=NOW, due_at=NOW)
    plan = plan_turn(drew, now=NOW)
    assert (plan.needs_presence, plan.to_move, seconds(plan.deadline), seconds(plan.due_at)) == (False, 0, 90, 90)
    assert plan.bell is None and not plan.computer_next


def test_within_a_turn_the_deadline_and_the_due_time_stay():
    deadline, due = NOW + timedelta(seconds=50), NOW + timedelta(seconds=40)
    melded = turn(before=Position(0, "play"), after=Position(0, "play"), deadline=deadline, due_at=due)
    plan = plan_turn(melded, now=NOW)
    assert (plan.deadline, plan.due_at) == (deadline, due)
    # The timer played the meld for an absent Anna: her due time stays too, and no bell for her.
    plan = plan_turn(turn(by_person=False, before=Position(0, "play"), after=Position(0, "play"),
                          deadline=deadline, due_at=due), now=NOW, online=set())
    assert (plan.deadline, plan.due_at, plan.bell) == (deadline, due, None)


def test_a_cover_just_ended_does_not_keep_the_computers_due_time():
    deadline, computer_due = NOW + timedelta(seconds=50), NOW + timedelta(seconds=3)
    back = turn(before=Position(0, "play"), after=Position(0, "play"), deadline=deadline, due_at=computer_due,
                cover_ended=True)
    plan = plan_turn(back, now=NOW)
    assert (plan.deadline, plan.due_at) == (deadline, deadline)


def test_a_new_hand_gets_the_break_and_rings_even_the_seat_that_closed():
    dealt = turn(before=Position(0, "play"), after=Position(0, "draw", hand_break=True), new_hand=True,
                 deadline=NOW, due_at=NOW)
    plan = plan_turn(dealt, now=NOW, hand_break_seconds=15)
    assert plan.needs_presence  # not "the person who acted plays on": a new deal, who is looking?
    plan = plan_turn(dealt, now=NOW, online={1}, hand_break_seconds=15)
    assert (plan.to_move, seconds(plan.deadline), plan.bell, plan.away) == (0, 45, 7, 0)


def test_the_match_over_leaves_nothing_to_plan():
    plan = plan_turn(turn(after=None), now=NOW)
    assert (plan.to_move, plan.deadline, plan.due_at, plan.computer_next, plan.bell) == (None, None, None, False, None)


def test_refusals_of_the_game_and_of_the_seat():
    playing = dict(found=True, finished=False, playing=True, version=4)
    assert game_refusal(**playing, expected_version=None) is None
    assert game_refusal(**playing, expected_version=4) is None
    assert game_refusal(**playing, expected_version=3) == "stale_version"
    assert game_refusal(**{**playing, "found": False}, expected_version=None) == "not_playing"
    assert game_refusal(**{**playing, "playing": False}, expected_version=3) == "not_playing"
    seats = (ANNA, COMPUTER)
    assert seat_refusal(seats, 0, by_person=True, user_id=7) is None
    assert seat_refusal(seats, 0, by_person=True, user_id=None) == "not_your_seat"
    assert seat_refusal(seats, 1, by_person=True, user_id=7) == "not_your_seat"
    assert seat_refusal(seats, 1, by_person=False, user_id=None) is None
    assert seat_refusal(seats, 2, by_person=False, user_id=None) == "bad_action"


def test_the_deadline_and_the_due_time_rules():
    assert seconds(turn_deadline(Position(0, "draw"), TIMING, NOW)) == 30
    assert seconds(turn_deadline(Position(0, "play"), TIMING, NOW)) == 90
    assert seconds(turn_deadline(Position(0, "draw"), TIMING, NOW, previous=NOW)) == 30  # a draw restarts
    assert seconds(turn_deadline(Position(0, "draw", hand_break=True), TIMING, NOW, hand_break_seconds=8)) == 38
    assert due_time(BRUNO, None, set(), NOW, 5) == (None, False)
    assert due_time(BRUNO, NOW, {1}, NOW, 5) == (NOW, False)
    assert due_time(SeatFacts(1, None, "", False, 0), NOW, set(), NOW, 5) == (NOW, False)  # nobody to wait for
