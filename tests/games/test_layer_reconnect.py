"""The channel layer's subscriber reconnecting (Redis restarted, or the connection dropped) is
noticed in the process, so its sockets can be sent what was published meanwhile
(games/live/transport.py `ReconnectWatch`; the consumers' side is tests/games/test_consumers.py
and, with a real restart, tests/faults/test_redis_restart.py)."""

from __future__ import annotations

import asyncio
import os

import pytest
import redis
from channels_redis.pubsub import RedisPubSubChannelLayer

from burraco_site.settings import redis_channel_layer
from games.live import transport


async def test_the_watch_runs_its_listener_once_the_subscriber_is_back(monkeypatch):
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("the Redis channel layer needs REDIS_URL (CI sets it)")
    layer = RedisPubSubChannelLayer(**redis_channel_layer(url)["CONFIG"])
    monkeypatch.setattr(transport, "get_channel_layer", lambda: layer)
    heard = asyncio.Event()

    async def listener() -> None:
        heard.set()

    watch = transport.ReconnectWatch(listener)
    admin = redis.Redis.from_url(url)
    try:
        channel = await layer.new_channel()
        await layer.group_add("reconnect-probe", channel)
        watch.hook()
        watch.hook()  # once per connection
        assert not heard.is_set()
        # Drop exactly this subscriber's connection from the server's side (not the other
        # pub/sub clients of a shared Redis).
        shard = layer._get_layer()._shards[0]
        host, port = shard._pubsub.connection._writer.get_extra_info("sockname")[:2]
        admin.client_kill(f"{host}:{port}")
        await asyncio.wait_for(heard.wait(), 10)
        assert watch.reconnects == 1
        # The listener ran once the group was subscribed again: what is sent now arrives.
        await layer.group_send("reconnect-probe", {"type": "probe"})
        assert (await asyncio.wait_for(layer.receive(channel), 5))["type"] == "probe"
    finally:
        admin.close()
        await layer.flush()
