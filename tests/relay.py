"""The test process's frames to the live server, in the default mode (no REDIS_URL).

Many browser tests change the game through the services from the test process itself (a join to
the queue, a challenge, a move, a match played out) and then expect the pages to hear of it live.
With Redis (CI) the frames those services send travel on the shared channel layer to the sockets
of the live Daphne process. In the default mode every process has its own in-memory layer: what
the test process delivered reached nobody, and the pages waited until they timed out. The site
itself has no such gap: there, every change is made in the one server process.

So in the default mode the live server is `tests.live_asgi:application` (the site plus one route,
RELAY_PATH), and while a test uses `live_site` the test process's channel layer is a `RelayLayer`:
each `group_send` also goes, as one HTTP request, to that route, which sends it on the server's
own layer. A message travels as msgpack, the encoding of channels_redis, so a frame the Redis
layer could not carry fails here too. The request returns once the server has sent the message:
frames arrive in the order the test process sent them, as they do through Redis.
"""

from __future__ import annotations

import asyncio
import urllib.request
from typing import Any

import msgpack

RELAY_PATH = "/__tests__/channel-layer/"


def pack(group: str, message: dict[str, Any]) -> bytes:
    return msgpack.packb([group, message], use_bin_type=True)


def unpack(body: bytes) -> tuple[str, dict[str, Any]]:
    group, message = msgpack.unpackb(body, raw=False, strict_map_key=False)
    return group, message


class RelayLayer:
    """The test process's channel layer while a live server runs without Redis: `inner` (the
    in-memory layer) for everything, and every `group_send` relayed to the live server too."""

    def __init__(self, inner, live_site: str) -> None:
        self.inner = inner
        self.url = live_site + RELAY_PATH

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self.inner.group_send(group, message)
        await asyncio.to_thread(self._post, pack(group, message))

    def _post(self, body: bytes) -> None:
        request = urllib.request.Request(self.url, data=body, method="POST",
                                         headers={"Content-Type": "application/msgpack"})
        with urllib.request.urlopen(request, timeout=10) as response:
            if response.status != 204:
                raise RuntimeError(f"the live server did not relay a frame: HTTP {response.status}")
