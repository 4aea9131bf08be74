"""What every browser test gets: in the default mode (no REDIS_URL), the frames the test process
sends reach the live server's sockets (tests/relay.py), as they do through Redis."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _frames_reach_the_live_server(request):
    if os.environ.get("REDIS_URL") or "live_site" not in request.fixturenames:
        yield
        return
    from channels.layers import channel_layers

    from tests.relay import RelayLayer

    live_site = request.getfixturevalue("live_site")
    inner = channel_layers["default"]
    channel_layers.backends["default"] = RelayLayer(inner, live_site)
    try:
        yield
    finally:
        channel_layers.backends["default"] = inner
