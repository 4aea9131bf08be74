"""The table's wire protocol: every server->client frame (frames.py), a socket's own reads
(sockets.py), the channel-layer transport (transport.py), presence as a store (presence.py) and the
game clock (clock.py). Below the selectors: imports no service and no selector."""
