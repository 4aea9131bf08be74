"""The live server of the tests in the default mode: the site's ASGI application, and one route
more (tests/relay.py) where the test process hands over what it sends on its channel layer."""

from __future__ import annotations

from channels.layers import get_channel_layer

from burraco_site.asgi import application as site
from tests.relay import RELAY_PATH, unpack


async def application(scope, receive, send):
    if scope["type"] == "http" and scope["path"] == RELAY_PATH and scope["method"] == "POST":
        await relay(receive, send)
        return
    await site(scope, receive, send)


async def relay(receive, send) -> None:
    """POST RELAY_PATH: one `group_send` of the test process, sent on this process's layer."""
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    group, message = unpack(body)
    await get_channel_layer().group_send(group, message)
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})
