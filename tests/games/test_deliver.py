"""Frames sent from synchronous code reach their group, whatever thread they are sent from."""

from __future__ import annotations

import asyncio
import json

from channels.layers import get_channel_layer

from games.live import transport


def test_deliver_from_a_thread_whose_event_loop_runs():
    """asgiref refuses async_to_sync where a loop runs (as in a test driving Playwright's sync API);
    deliver must still send, not log the frames as lost."""
    layer = get_channel_layer()

    async def scenario() -> dict:
        channel = await layer.new_channel()
        await layer.group_add("table.999999.all", channel)
        try:
            transport.deliver([("table.999999.all", {"type": "clock", "version": 7})])  # sync, loop running
            return await asyncio.wait_for(layer.receive(channel), timeout=5)
        finally:
            await layer.group_discard("table.999999.all", channel)

    message = asyncio.run(scenario())
    assert json.loads(message["text"]) == {"type": "clock", "version": 7}
