"""WebSocket consumers, thin edges that authenticate, parse, rate-limit and hand to the services:
`base` (the socket base, rate limit, abuse score, heartbeats), `table` (TableConsumer, see
docs/protocol.md) and `lobby` (LobbyConsumer: the public list and "Gioca con persone")."""
