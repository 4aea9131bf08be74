"""The wire format of the frames that moved into games/live/frames.py (issue 30, item 1): the
builders are pure, so their exact JSON (keys, order, values) is pinned here without a database."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from games.live import frames


def test_the_practice_clock_frame_stops_with_a_null_deadline_and_runs_with_an_iso_one():
    stopped = frames.clock_frame(7, None, "2026-01-02T03:04:05+00:00", "tour")
    assert json.dumps(stopped) == ('{"type": "clock", "version": 7, "deadline": null, '
                                   '"server_time": "2026-01-02T03:04:05+00:00", "reason": "tour"}')
    running = frames.clock_frame(7, datetime(2026, 1, 2, 3, 5, tzinfo=UTC), "2026-01-02T03:04:05+00:00", "tour")
    assert running["deadline"] == "2026-01-02T03:05:00+00:00"


def test_the_lobby_pong_is_the_compact_text_it_always_was():
    assert json.dumps(frames.lobby_pong(), separators=(",", ":")) == '{"type":"pong"}'


def test_the_queue_frames_keep_their_keys_in_order():
    waiting = frames.queue_waiting(mode="standard", preset="classic", waited=12, window=None, computer_after=True,
                                   computer_in=48, partner=None, partner_ready=None)
    assert list(waiting) == ["type", "status", "mode", "preset", "waited", "window", "computer_after",
                             "computer_in", "partner", "partner_ready"]
    assert frames.queue_idle("left") == {"type": "queue", "status": "idle", "reason": "left"}
    invite = frames.pair_invite("pending", "anna", "bruno", "pairs", "classic", "Classica")
    assert json.dumps(invite) == ('{"type": "pair_invite", "status": "pending", "from": "anna", "to": "bruno", '
                                  '"mode": "pairs", "preset": "classic", "preset_label": "Classica"}')


def test_matched_names_its_url_and_whether_a_computer_sits():
    seats = [{"position": 0, "username": "anna", "bot_level": None},
             {"position": 1, "username": None, "bot_level": "expert"}]
    frame = frames.matched(42, 2, "classic", True, seats)
    assert frame["url"] == "/tavolo/42/" and frame["computer"] is True
    assert frames.matched(42, 2, "classic", True, seats[:1])["computer"] is False
    assert list(frame) == ["type", "table", "url", "players", "preset", "rated", "computer", "seats"]


def test_challenge_bell_friends_and_tournament_frames():
    challenge = frames.challenge(3, "pending", "anna", "bruno", "classic", "Classica", 60, None)
    assert list(challenge) == ["type", "id", "status", "from", "to", "preset", "preset_label", "expires_in", "table"]
    assert frames.bell(2, []) == {"type": "bell", "unread": 2, "items": []}
    assert frames.friends([]) == {"type": "friends", "friends": []}
    tournament = frames.tournament({"id": 5, "name": "Coppa"}, [], [], [{"id": 1, "name": "anna"}])
    assert list(tournament) == ["type", "id", "name", "standings", "rounds_played", "entries"]


def test_the_last_hand_over_names_who_never_sat_and_a_hand_before_it_does_not():
    finished = {"hand_number": 1, "score": [], "totals": [2100, 300], "end_reason": "closed", "closed_by": 0,
                "match_over": True, "winner_side": 0}
    assert frames.hand_over(9, finished, ["bruno"])["computer_for"] == ["bruno"]
    assert frames.hand_over(9, finished, [])["computer_for"] == []
    assert "computer_for" not in frames.hand_over(9, finished | {"match_over": False})
