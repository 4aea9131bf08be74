"""Who is at the table, as a service: what follows a socket closing, and the presence frame sent
to the table. The store itself (games/live/presence.py) only keeps the sockets and the away marks."""

from __future__ import annotations

from games.live import presence, transport
from games.selectors.tables import presence_frame
from games.services.table import turns


def socket_closed(table_id: int, position: int | None, user_id: int, socket_id: str) -> bool:
    """A table socket closed. True when it was its seat's last one: the player is now away, the
    time is noted, and if it is their turn the scheduler now looks at the game when their grace
    runs out."""
    if not presence.disconnected(table_id, position, user_id, socket_id):
        return False
    since = presence.mark_away(table_id, position)
    turns.seat_left(table_id, position, since)
    return True


def announce(table_id: int) -> None:
    """Send the table's `presence` frame to every socket at it (after commit: who is online, and
    which seats the computer covers). The timers call this when the computer takes a seat over."""
    transport.deliver([(transport.all_group(table_id), presence_frame(table_id))])
