"""WebSocket routes; the live-play consumer is added here."""

websocket_urlpatterns: list = []
