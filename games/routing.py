"""WebSocket routes: live play at a table and the lobby's live list; anything else is closed
with 4404 (no traceback)."""

from django.conf import settings
from django.urls import path, re_path

from games.benchmarks.echo import EchoConsumer
from games.consumers.base import NotFoundConsumer
from games.consumers.lobby import LobbyConsumer
from games.consumers.table import TableConsumer

websocket_urlpatterns: list = [
    path("ws/table/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]

if settings.BURRACO_BENCH_ECHO:  # the load benchmark's baseline only (games/benchmarks/live.py)
    websocket_urlpatterns.append(path("ws/echo/", EchoConsumer.as_asgi()))

websocket_urlpatterns.append(re_path(r"", NotFoundConsumer.as_asgi()))
