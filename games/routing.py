"""WebSocket routes: live play at a table and the lobby's live list."""

from django.urls import path

from . import consumers

websocket_urlpatterns: list = [
    path("ws/table/<int:table_id>/", consumers.TableConsumer.as_asgi()),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
]
