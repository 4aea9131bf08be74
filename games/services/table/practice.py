"""A table with no other person at it (every other seat a computer) is a practice table: while its
player reads the tour "Come si gioca qui" the turn clock stands still, and when the tour closes
their turn starts again with its full time (issue 29, item 3: the tour never runs on a clock).

The hold is kept in the cache (Redis in production), owned by the socket of the page that asked
for it: the scheduler (`autoplay.handle_due`) stops a deadline that comes due while the hold
stands, and the page asks for the hold again whenever a new deadline reaches it while the tour is
open. A page closed with the tour open lets the clock go as soon as its socket closes
(`page_gone`: the turn runs again, with its full time). The cache entry lasts at most HOLD_SECONDS;
a clock stopped by a hold whose socket's close was never seen (a server process that died) starts
again when the player's page comes back (it releases a clock it finds stopped on its turn).
"""

from __future__ import annotations

from datetime import timedelta

from django.core.cache import cache
from django.db import transaction

from games.engine import Game as EngineGame
from games.live import clock, frames, transport
from games.models import Game, Seat, Table
from games.services.errors import ServiceError

HOLD_SECONDS = 15 * 60
_KEY = "burraco:tour-hold:{}"


def held(table_id: int) -> bool:
    return bool(cache.get(_KEY.format(table_id)))


def hold_clock(*, table_id: int, user, hold: bool, socket_id: str = "") -> None:
    """`user`, seated at a practice table in play, opened (`hold`) or closed the tour from the page
    whose socket is `socket_id` (the hold's owner, see `page_gone`). Raises
    ServiceError("not_practice") anywhere else and changes nothing."""
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        seats = list(Seat.objects.filter(table_id=table_id)) if table else []
        mine = next((s for s in seats if user is not None and s.user_id == user.pk), None)
        if (table is None or table.status != Table.Status.PLAYING or mine is None
                or any(s.user_id is not None for s in seats if s is not mine)):
            raise ServiceError("not_practice")
        game = Game.objects.select_for_update().filter(table_id=table_id, finished=False).first()
        if hold:
            cache.set(_KEY.format(table_id), socket_id or "1", timeout=HOLD_SECONDS)
        else:
            cache.delete(_KEY.format(table_id))
        if game is None or game.to_move != mine.position or mine.covered_by_computer:
            return  # not their turn: the computer's move, then their turn's clock, as usual
        if hold:
            deadline = None
        else:
            if game.turn_deadline is not None:
                return  # the clock was not stopped (an old page): it runs on as it is
            phase = EngineGame.from_dict(game.state).phase
            seconds = table.draw_seconds if phase == "draw" else table.play_seconds
            deadline = clock.now() + timedelta(seconds=seconds)
        game.turn_deadline = game.due_at = deadline
        game.save(update_fields=["turn_deadline", "due_at"])
        frame = frames.clock_frame(game.version, deadline, clock.now().isoformat(), "tour")
        transaction.on_commit(lambda: transport.deliver([(transport.all_group(table_id), frame)]))


def page_gone(*, table_id: int, user, socket_id: str) -> None:
    """The socket of a page that opened the tour closed. If the hold is still that page's (no
    other page asked for it since), it ends as if the tour had closed: the turn's clock runs again,
    with its full time, and the scheduler treats the player like anyone who left the table."""
    if cache.get(_KEY.format(table_id)) != socket_id:
        return
    try:
        hold_clock(table_id=table_id, user=user, hold=False)
    except ServiceError:
        cache.delete(_KEY.format(table_id))  # the table is no practice table in play any more


def stop_if_held(game: Game) -> bool:
    """The scheduler found a person's deadline due: at a held practice table the clock stops
    instead (True); anywhere else nothing changes (False)."""
    if not held(game.table_id):
        return False
    updated = Game.objects.filter(pk=game.pk, version=game.version).update(turn_deadline=None, due_at=None)
    if updated:
        frame = frames.clock_frame(game.version, None, clock.now().isoformat(), "tour")
        transport.deliver([(transport.all_group(game.table_id), frame)])
    return True
