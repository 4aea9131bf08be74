"""WebSocket routes: live play at a table and the lobby's live list; anything else is closed
with 4404 (no traceback)."""

from django.conf import settings
from django.urls import path, re_path

from . import consumers

websocket_urlpatterns: list = [
    path("ws/table/<int:table_id>/", consumers.TableConsumer.as_asgi()),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
]

if settings.BURRACO_BENCH_ECHO:  # the load benchmark's baseline only (games/benchmarks/live.py)
    websocket_urlpatterns.append(path("ws/echo/", consumers.EchoConsumer.as_asgi()))

websocket_urlpatterns.append(re_path(r"", consumers.NotFoundConsumer.as_asgi()))
