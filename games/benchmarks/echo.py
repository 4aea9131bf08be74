"""The load benchmark's echo socket (`/ws/echo/`, routed only with BURRACO_BENCH_ECHO): the
baseline the live-play benchmark (live.py) compares the table's sockets with."""

from __future__ import annotations

import json
from typing import Any

from burraco_site.wsauth import authenticate
from games.consumers.base import CLOSE_UNAUTHENTICATED, SocketConsumer


class EchoConsumer(SocketConsumer):
    """The load benchmark's baseline (routed only with BURRACO_BENCH_ECHO): each frame goes out
    through one group_send on the channel layer and comes back padded to the asked size, so the
    cost of Daphne, the layer and a socket send can be measured without any game work."""

    async def connect(self) -> None:
        await self.accept()
        try:
            _session, user = await authenticate(self.scope)
        except Exception:  # noqa: BLE001 - Busy, or the database is down: as the table socket does
            await self.close(code=1013)  # try again later
            return
        if not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.group = "echo." + self.channel_name.replace("!", ".")[-60:]
        await self.channel_layer.group_add(self.group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = json.loads(text_data or "{}")
        pad = min(int(frame.get("pad", 0)), 1 << 16)
        await self.channel_layer.group_send(self.group, {"type": "echo.reply", "pad": pad})

    async def echo_reply(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"type": "echo", "pad": "x" * message["pad"]}))

