"""Turn timers, the computer's cover of a seat, and the per-game work of the scheduler.

Every entry point takes ids and the game version it was meant for, and goes through
`play.submit_action` like a person's action. Work whose version is no longer the game's is
stale and does nothing, however late or often it arrives; two racing writers meet the version
check, so exactly one of them plays.

- `handle_due`: the scheduler found the game due (`Game.due_at` passed). By the game clock
  (`clock.now()`): the turn's deadline passed → `complete_turn`; a computer (or covered) seat's
  move is overdue → `play_computer_move`; the person to move has been away (no live socket)
  longer than the table's `disconnect_grace_seconds` → the computer covers the seat. Otherwise
  the game's `due_at` is set to the next moment that matters.
- `complete_turn`: time is up: draw if not yet drawn, then discard the card the greedy computer
  player would; logged with actor "timeout". Two timeouts in a row hand the seat to the
  computer (`covered_by_computer`) until its player acts again or sends "Sono tornato".
- `play_computer_move`: one action for a computer seat or a covered seat, chosen from that
  seat's view only (`games.bots.choose_action`); the Celery task `computer_move` runs it.
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import timedelta
from typing import Any

from django.core.cache import cache
from django.db import transaction

from games.bots import choose_action
from games.bots.knowledge import determinize
from games.bots.strategy import discard_action
from games.engine import Game as EngineGame
from games.engine import IllegalMove
from games.live import clock, presence
from games.models import Game, Seat, Table
from games.services.errors import ServiceError
from games.services.play.play import submit_action
from games.services.table import attendance, turns
from games.services.table.practice import stop_if_held
from games.services.table.turns import bot_delay

log = logging.getLogger(__name__)

# The computer covering a person's seat plays at this level.
COVER_LEVEL = "medio"
TIMEOUTS_BEFORE_COVER = 2
STATS_KEY = "burraco:timers:{}"

_system_rng = secrets.SystemRandom()


# ----------------------------------------------------------------------------- settings


def _count(event: str) -> None:
    """Counters of what the timers did (stale tasks ignored, turns completed, ...), for the
    operators and for tests that must see that a late task was received and ignored."""
    key = STATS_KEY.format(event)
    cache.add(key, 0, timeout=None)
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=None)


def stats() -> dict[str, int]:
    names = ["stale", "timeout", "computer", "covered", "early"]
    values = cache.get_many([STATS_KEY.format(n) for n in names])
    return {n: int(values.get(STATS_KEY.format(n), 0) or 0) for n in names}


# ----------------------------------------------------------------------------- reading


def _current(game_id: int, version: int) -> tuple[Game, Seat] | None:
    """The game and the seat to move, or None when the task is stale (or the game over)."""
    # One table per query, outside any transaction: a stale check holds no lock while it waits.
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.finished or game.version != version or game.to_move is None:
        return None
    if game.table.status != Table.Status.PLAYING:
        return None
    seat = Seat.objects.filter(table_id=game.table_id, position=game.to_move).first()
    if seat is None:
        return None
    return game, seat


def _stale() -> str:
    """A task that came too late (the game moved on, ended or was never there): counted, ignored."""
    _count("stale")
    return "stale"


def computer_plays(seat: Seat) -> bool:
    return seat.is_computer or seat.covered_by_computer


# ----------------------------------------------------------------------------- timers


def timeout_actions(engine_game: EngineGame, seat: int) -> list[dict[str, Any]]:
    """The legal completion of a turn: a draw if not yet drawn, then a sensible discard.

    The discard is chosen from the seat's own view, as the greedy computer player would.
    """
    actions: list[dict[str, Any]] = []
    if engine_game.phase == "draw":
        draw = {"type": "draw"} if engine_game.stock else {"type": "take_discards"}
        actions.append(draw)
        engine_game = engine_game.copy()
        engine_game.apply(seat, draw)
        if engine_game.hand_over:
            return actions
    sample = determinize(engine_game.view(seat), random.Random(_system_rng.random()))
    actions.append(discard_action(sample, seat))
    return actions


def handle_due(game_id: int, version: int) -> str:
    """The scheduler's work for one due game. Returns what happened (for logs and tests)."""
    current = _current(game_id, version)
    if current is None:
        return _stale()
    game, seat = current
    now = clock.now()
    if computer_plays(seat):
        return play_computer_move(game_id, version)
    if game.turn_deadline is not None and now >= game.turn_deadline:
        if stop_if_held(game):  # a practice table's player is reading the tour: no clock
            return "held"
        return complete_turn(game_id, version)
    if seat.user_id is not None and not presence.is_online(game.table_id, seat.position):
        since = presence.mark_away(game.table_id, seat.position)
        if (now - since).total_seconds() >= game.table.disconnect_grace_seconds:
            return cover_seat(game_id, version)
        next_look = since + timedelta(seconds=game.table.disconnect_grace_seconds)
        if game.turn_deadline is not None:
            next_look = min(next_look, game.turn_deadline)
    else:
        next_look = game.turn_deadline
    Game.objects.filter(pk=game_id, version=version).update(due_at=next_look)
    _count("early")
    return "not_due"


def complete_turn(game_id: int, version: int) -> str:
    """Time is up: play the rest of the turn for the seat to move, logged as actor "timeout"."""
    try:
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=game_id)
            if game.finished or game.version != version or game.turn_deadline is None:
                raise _Stale
            if clock.now() < game.turn_deadline:
                raise _Stale
            engine_game = EngineGame.from_dict(game.state)
            position = engine_game.to_move
            current = version
            for action in timeout_actions(engine_game, position):
                current = submit_action(game_id=game_id, seat=position, action=action, actor="timeout",
                                  expected_version=current)
            seat = Seat.objects.select_for_update().get(table_id=game.table_id, position=position)
            if seat.user_id is not None:
                seat.consecutive_timeouts += 1
                fields = ["consecutive_timeouts"]
                if seat.consecutive_timeouts >= TIMEOUTS_BEFORE_COVER and not seat.covered_by_computer:
                    seat.covered_by_computer = True
                    fields.append("covered_by_computer")
                    table_id = game.table_id
                    transaction.on_commit(lambda: attendance.announce(table_id))
                    transaction.on_commit(lambda: _count("covered"))
                    # The scheduler looks again soon, in case it is this seat's turn again first.
                seat.save(update_fields=fields)
    except (_Stale, Game.DoesNotExist):
        return _stale()
    except (IllegalMove, ServiceError) as exc:
        if exc.code == "stale_version" or exc.code == "not_playing":
            return _stale()
        raise
    _count("timeout")
    return "timeout"


class _Stale(Exception):
    pass


# ----------------------------------------------------------------------------- computer moves


def play_computer_move(game_id: int, version: int) -> str:
    """One action for the computer seat (or covered seat) to move, from its view alone."""
    current = _current(game_id, version)
    if current is None:
        return _stale()
    game, seat = current
    if not computer_plays(seat):
        return "not_computer"
    engine_game = EngineGame.from_dict(game.state)
    position = engine_game.to_move
    view = engine_game.view(position)  # the only thing the computer player receives
    level = seat.bot_level or COVER_LEVEL
    rng = random.Random(_system_rng.random())
    try:
        # The hand's public history rides beside the view (the same for every seat, no hidden card).
        action = choose_action(view, level, rng, record=engine_game.public_record())
    except Exception:  # a computer player's bug must not stall the table either
        log.exception("computer player %s failed at game %s v%s", level, game_id, version)
        action = timeout_actions(engine_game, position)[0]
    try:
        submit_action(game_id=game_id, seat=position, action=action, actor="computer", expected_version=version)
    except (IllegalMove, ServiceError) as exc:
        if exc.code in ("stale_version", "not_playing"):
            return _stale()
        # A computer player's mistake must not stall the table: fall back to the safest move.
        log.exception("computer player %s refused at game %s v%s: %s", level, game_id, version, exc)
        fallback = timeout_actions(engine_game, position)[0]
        try:
            submit_action(game_id=game_id, seat=position, action=fallback, actor="computer",
                    expected_version=version)
        except (IllegalMove, ServiceError):
            return _stale()
    _count("computer")
    return "computer"


# ----------------------------------------------------------------------------- presence


def cover_seat(game_id: int, version: int) -> str:
    """The person to move has been away past the grace: the computer plays their seat."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.version != version or game.finished or game.to_move is None:
            return "stale"
        seat = Seat.objects.select_for_update().get(table_id=game.table_id, position=game.to_move)
        if seat.covered_by_computer or seat.user_id is None:
            return "stale"
        seat.covered_by_computer = True
        seat.save(update_fields=["covered_by_computer"])
        game.due_at = clock.now() + timedelta(seconds=bot_delay() + turns.COMPUTER_SLACK_SECONDS)
        game.save(update_fields=["due_at"])
        table_id = game.table_id
        transaction.on_commit(lambda: attendance.announce(table_id))
        transaction.on_commit(lambda: turns.after_change(game_id, version, computer_next=True))
    _count("covered")
    return "covered"
