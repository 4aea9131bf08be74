"""Channel-layer groups and the one function that sends frames to them.

Hidden information by construction: a frame carrying a view goes only to the group of the seat
whose view it is (`table.<id>.seat.<n>`, joined by every tab of that seat's player) or, for the
spectators' public view, to `table.<id>.public`. Frames with nothing hidden in them (chat,
presence, the table's seating) go to `table.<id>.all`, which every socket of the table joins.
The lobby's list goes to `lobby`.

Everything is sent through `deliver`, so tests can capture exactly what left the server.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
# The consumer method that forwards a frame to its socket (`frame_send`).
MESSAGE_TYPE = "frame.send"


def seat_group(table_id: int, position: int) -> str:
    return f"table.{table_id}.seat.{position}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


def all_group(table_id: int) -> str:
    return f"table.{table_id}.all"


def deliver(messages: Iterable[tuple[str, dict[str, Any]]]) -> None:
    """Send each (group, frame) pair. Called after commit, from synchronous code.

    A lost frame is not fatal (a client that sees a gap asks for a snapshot), so a channel-layer
    failure is logged, not raised into the request that committed the change.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    batch = list(messages)
    if not batch:
        return

    async def send_all() -> None:
        for group, frame in batch:
            await layer.group_send(group, {"type": MESSAGE_TYPE, "frame": frame})

    try:
        async_to_sync(send_all)()
    except Exception:  # noqa: BLE001 - see docstring
        log.exception("could not deliver %d frames", len(batch))
