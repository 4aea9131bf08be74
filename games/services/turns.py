"""After every change to a game: schedule its turn timer and any computer move.

The play service calls `after_change` from `transaction.on_commit`, so whatever it schedules
sees committed state. It is called once per new version (and again, harmlessly, by "Sono
tornato"); everything it schedules carries the version, and a task whose version moved on does
nothing (see `timeouts`).

- A computer seat, or a person's seat the computer covers, to move: its next action after a
  short human-like pause (`BOT_MOVE_DELAY_SECONDS`).
- A person to move: the countdown task at `Game.turn_deadline`; and, if the person has no live
  socket at the table, a presence check when the disconnect grace runs out.
"""

from __future__ import annotations

import logging

from ..models import Game, Seat
from . import clock, presence

log = logging.getLogger(__name__)


def after_change(game_id: int, version: int) -> None:
    """Schedule the timer for the turn now in play and the computer's move if it is a computer's turn."""
    try:
        _schedule_turn(game_id, version)
    except Exception:  # the change is committed; the sweep will catch up if scheduling failed
        log.exception("could not schedule the turn of game %s v%s", game_id, version)


def _schedule_turn(game_id: int, version: int) -> None:
    from . import timeouts  # imported here: timeouts uses the play service, which imports this module

    game = Game.objects.filter(pk=game_id).select_related("table").first()
    if game is None or game.finished or game.version != version or game.to_move is None:
        return  # a later change schedules its own turn
    seat = Seat.objects.filter(table_id=game.table_id, position=game.to_move).first()
    if seat is None:
        return
    if timeouts.computer_plays(seat):
        timeouts._schedule("computer_move", game_id, version, timeouts.bot_delay())
        return
    if game.turn_deadline is not None:
        remaining = (game.turn_deadline - clock.now()).total_seconds()
        timeouts._schedule("turn_timeout", game_id, version, remaining)
    if seat.user_id is not None and not presence.is_online(game.table_id, seat.position):
        waited = (clock.now() - timeouts.away_since(game, seat.position)).total_seconds()
        timeouts._schedule("presence_check", game_id, version, game.table.disconnect_grace_seconds - waited)
