"""Frames sent from synchronous code reach their group, whatever thread they are sent from."""

from __future__ import annotations

import asyncio
import json
import threading
import time

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


def test_a_frame_sent_from_another_thread_wakes_the_socket_waiting_on_its_loop_at_once():
    """The single-process mode: the embedded Celery worker and the turn scheduler send from
    threads of their own while the sockets wait on the server's loop. The frame must wake the
    waiting socket then, not when that loop next wakes for something else (here: never)."""
    layer = get_channel_layer()
    loop = asyncio.new_event_loop()
    waiting = threading.Event()
    got: dict = {}

    async def socket() -> None:
        channel = await layer.new_channel()
        await layer.group_add("table.999998.all", channel)
        try:
            loop.call_soon(waiting.set)  # runs once receive() below waits
            got["message"] = await asyncio.wait_for(layer.receive(channel), timeout=5)
            got["at"] = time.monotonic()
        finally:
            await layer.group_discard("table.999998.all", channel)

    thread = threading.Thread(target=loop.run_until_complete, args=(socket(),), daemon=True)
    thread.start()
    try:
        assert waiting.wait(timeout=5)
        sent = time.monotonic()
        transport.deliver([("table.999998.all", {"type": "clock", "version": 8})])  # via the delivery loop
        thread.join(timeout=10)
        assert json.loads(got["message"]["text"]) == {"type": "clock", "version": 8}
        assert got["at"] - sent < 0.5, f"the socket woke {got['at'] - sent:.2f} s after the send"
    finally:
        thread.join(timeout=10)
        if not thread.is_alive():
            loop.close()
