"""Turn timers, the computer's cover of a seat, and the sweep that catches lost tasks.

Every entry point takes ids and the game version it was scheduled for, and goes through
`play.submit_action` like a person's action. A task whose version is no longer the game's is
stale and does nothing, however late or often it arrives; two racing tasks meet the game's row
lock and version check, so exactly one of them plays.

- `handle_deadline`: the countdown task. When the turn's deadline has passed (by the game
  clock, `clock.now()`), the server completes the turn legally for the player: draws if not
  yet drawn, then discards the card the greedy computer player would; the moves are logged with
  actor "timeout". Two timeouts in a row hand the seat to the computer (`covered_by_computer`)
  until its player acts again or sends "Sono tornato".
- `play_computer_move`: one action for a computer seat or a covered seat, chosen from that
  seat's view only (`games.bots.choose_action`).
- `check_presence`: a person whose turn it is and who has been away (no live socket) for more
  than the table's `disconnect_grace_seconds` is covered by the computer until they return.
- `sweep`: run by beat every few seconds; redoes whatever a lost task should have done.
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..bots import choose_action
from ..bots.knowledge import determinize
from ..bots.strategy import discard_action
from ..engine import Game as EngineGame
from ..engine import IllegalMove
from ..models import Game, Seat, Table
from . import clock, presence

log = logging.getLogger(__name__)

# The computer covering a person's seat plays at this level.
COVER_LEVEL = "medio"
# A computer seat whose move has not come this long after the last change is nudged by the sweep.
STALLED_COMPUTER_SECONDS = 10
TIMEOUTS_BEFORE_COVER = 2
STATS_KEY = "burraco:timers:{}"

_system_rng = secrets.SystemRandom()


# ----------------------------------------------------------------------------- settings


def bot_delay() -> float:
    """Seconds a computer waits before each action (a human-like pause; 0 in tests)."""
    return max(0.0, float(settings.BOT_MOVE_DELAY_SECONDS))


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
    names = ["stale", "timeout", "computer", "covered", "early", "sweep"]
    values = cache.get_many([STATS_KEY.format(n) for n in names])
    return {n: int(values.get(STATS_KEY.format(n), 0) or 0) for n in names}


# ----------------------------------------------------------------------------- reading


def _submit(**kwargs: Any) -> int:
    """The play service's one door (imported late: the play service imports `turns`, which
    imports this module)."""
    from .play import submit_action

    return submit_action(**kwargs)


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


def computer_plays(seat: Seat) -> bool:
    return seat.is_computer or seat.covered_by_computer


def turn_key(game: Game) -> str:
    """Identifies the turn in play: hand number and how many discards came before it."""
    actions = (game.state or {}).get("actions", [])
    discards = sum(1 for a in actions if a.get("type") == "discard")
    return f"{game.pk}:{game.hand_number}:{discards}"


# ----------------------------------------------------------------------------- timers


def timeout_actions(engine_game: EngineGame, seat: int) -> list[dict[str, Any]]:
    """The legal completion of a turn: a draw if not yet drawn, then a sensible discard.

    The discard is chosen from the seat's own view, as the greedy computer player would.
    """
    actions: list[dict[str, Any]] = []
    if engine_game.phase == "draw":
        draw = {"type": "draw"} if engine_game.stock else {"type": "take_discards"}
        actions.append(draw)
        engine_game = EngineGame.from_dict(engine_game.to_dict())
        engine_game.apply(seat, draw)
        if engine_game.hand_over:
            return actions
    sample = determinize(engine_game.view(seat), random.Random(_system_rng.random()))
    actions.append(discard_action(sample, seat))
    return actions


def handle_deadline(game_id: int, version: int) -> str:
    """The countdown task's work. Returns what happened (for logs and tests)."""
    current = _current(game_id, version)
    if current is None:
        _count("stale")
        return "stale"
    game, seat = current
    if game.turn_deadline is None:
        return "no_deadline"
    remaining = (game.turn_deadline - clock.now()).total_seconds()
    if remaining > 0:
        # Early (the task's countdown ran on another clock): come back at the deadline.
        _count("early")
        _schedule("turn_timeout", game_id, version, remaining)
        return "early"
    if computer_plays(seat):
        return play_computer_move(game_id, version)
    return complete_turn(game_id, version)


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
                current = _submit(game_id=game_id, seat=position, action=action, actor="timeout",
                                  expected_version=current)
            seat = Seat.objects.select_for_update().get(table_id=game.table_id, position=position)
            if seat.user_id is not None:
                seat.consecutive_timeouts += 1
                fields = ["consecutive_timeouts"]
                if seat.consecutive_timeouts >= TIMEOUTS_BEFORE_COVER and not seat.covered_by_computer:
                    seat.covered_by_computer = True
                    fields.append("covered_by_computer")
                    table_id = game.table_id
                    transaction.on_commit(lambda: presence.announce(table_id))
                    transaction.on_commit(lambda: _count("covered"))
                seat.save(update_fields=fields)
    except (_Stale, Game.DoesNotExist):
        _count("stale")
        return "stale"
    except IllegalMove as exc:
        if exc.code == "stale_version" or exc.code == "not_playing":
            _count("stale")
            return "stale"
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
        _count("stale")
        return "stale"
    game, seat = current
    if not computer_plays(seat):
        return "not_computer"
    engine_game = EngineGame.from_dict(game.state)
    position = engine_game.to_move
    view = engine_game.view(position)  # the only thing the computer player receives
    level = seat.bot_level or COVER_LEVEL
    rng = random.Random(_system_rng.random())
    try:
        action = choose_action(view, level, rng)
    except Exception:  # a computer player's bug must not stall the table either
        log.exception("computer player %s failed at game %s v%s", level, game_id, version)
        action = timeout_actions(engine_game, position)[0]
    try:
        _submit(game_id=game_id, seat=position, action=action, actor="computer", expected_version=version)
    except IllegalMove as exc:
        if exc.code in ("stale_version", "not_playing"):
            _count("stale")
            return "stale"
        # A computer player's mistake must not stall the table: fall back to the safest move.
        log.exception("computer player %s refused at game %s v%s: %s", level, game_id, version, exc)
        fallback = timeout_actions(engine_game, position)[0]
        try:
            _submit(game_id=game_id, seat=position, action=fallback, actor="computer",
                    expected_version=version)
        except IllegalMove:
            _count("stale")
            return "stale"
    _count("computer")
    return "computer"


# ----------------------------------------------------------------------------- presence


def _away_key(table_id: int, position: int) -> str:
    return f"burraco:away:{table_id}:{position}"


def away_since(game: Game, position: int) -> datetime:
    """When the seat's player was first seen away during the turn in play (now, if just now)."""
    key = _away_key(game.table_id, position)
    this_turn = turn_key(game)
    mark = cache.get(key)
    if not mark or mark.get("turn") != this_turn:
        mark = {"turn": this_turn, "since": clock.now().isoformat()}
        cache.set(key, mark, timeout=24 * 3600)
    return datetime.fromisoformat(mark["since"])


def check_presence(game_id: int, version: int) -> str:
    """Cover the seat to move with the computer if its player has been away past the grace."""
    current = _current(game_id, version)
    if current is None:
        return "stale"
    game, seat = current
    if computer_plays(seat) or seat.user_id is None:
        return "computer"
    if presence.is_online(game.table_id, seat.position):
        cache.delete(_away_key(game.table_id, seat.position))
        return "online"
    grace = game.table.disconnect_grace_seconds
    waited = (clock.now() - away_since(game, seat.position)).total_seconds()
    if waited < grace:
        _schedule("presence_check", game_id, version, grace - waited)
        return "away"
    with transaction.atomic():
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        fresh = Game.objects.filter(pk=game_id).values_list("version", flat=True).first()
        if fresh != version or seat.covered_by_computer:
            return "stale"
        seat.covered_by_computer = True
        seat.save(update_fields=["covered_by_computer"])
        table_id = game.table_id
        transaction.on_commit(lambda: presence.announce(table_id))
        # The cover is in place: the turn machinery now schedules the computer's move.
        from . import turns

        transaction.on_commit(lambda: turns.after_change(game_id, version))
    _count("covered")
    return "covered"


def reclaim_seat(table_id: int, position: int, user) -> Seat:
    """"Sono tornato": the person sitting at `position` takes the seat back from the computer."""
    from .tables import TableError, take_seat_back

    seat = Seat.objects.filter(table_id=table_id, user=user).first()
    if seat is not None and seat.position != position:
        raise TableError("not_your_seat", _("Puoi giocare solo per il tuo posto."))
    cache.delete(_away_key(table_id, position))
    return take_seat_back(table_id=table_id, user=user)


# ----------------------------------------------------------------------------- safety nets


def enforce_deadline(game_id: int) -> bool:
    """The check made before an incoming action: if the turn's time ran out and its timer task
    was lost, complete the turn now. True when it did."""
    game = Game.objects.filter(pk=game_id).only("id", "version", "turn_deadline", "finished").first()
    if game is None or game.finished or game.turn_deadline is None or clock.now() < game.turn_deadline:
        return False
    return handle_deadline(game.pk, game.version) in ("timeout", "computer")


def sweep() -> dict[str, int]:
    """Catch whatever a lost task should have done, for every game in play."""
    done = {"timeouts": 0, "computer": 0, "covered": 0}
    now = clock.now()
    stalled_before = timezone.now() - timedelta(seconds=max(STALLED_COMPUTER_SECONDS, 4 * bot_delay()))
    games = Game.objects.filter(finished=False, table__status=Table.Status.PLAYING, to_move__isnull=False)
    for game in games.select_related("table").iterator():
        seat = Seat.objects.filter(table_id=game.table_id, position=game.to_move).first()
        if seat is None:
            continue
        try:
            if computer_plays(seat):
                if game.updated_at <= stalled_before:
                    done["computer"] += play_computer_move(game.pk, game.version) == "computer"
            elif game.turn_deadline is not None and now >= game.turn_deadline:
                done["timeouts"] += complete_turn(game.pk, game.version) == "timeout"
            else:
                done["covered"] += check_presence(game.pk, game.version) == "covered"
        except Exception:  # one broken game must not stop the sweep for the others
            log.exception("sweep failed on game %s", game.pk)
    _count("sweep")
    return done


# ----------------------------------------------------------------------------- scheduling


def _schedule(task_name: str, game_id: int, version: int, countdown: float) -> None:
    from .. import tasks

    task = getattr(tasks, task_name)
    task.apply_async((game_id, version), countdown=max(0.0, countdown))
