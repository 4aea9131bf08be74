"""Django's Redis cache, with one connection pool per process instead of one per context.

`django.core.cache.caches` lives in an asgiref Local, so every `sync_to_async` call (each socket
frame on the database thread pool) may build a fresh `RedisCache` with a fresh pool, and so a
fresh Redis connection and handshake: measured at ~40 % of a Daphne process's CPU while sockets
were opening (docs/performance.md). Here the client, and with it the pool, is shared by every
`RedisCache` of the same settings in the process.
"""

from __future__ import annotations

import threading

from django.core.cache.backends.redis import RedisCache

_clients: dict[tuple, object] = {}
_lock = threading.Lock()


class SharedPoolRedisCache(RedisCache):
    @property
    def _cache(self):
        key = (tuple(self._servers), tuple(sorted((k, repr(v)) for k, v in self._options.items())))
        client = _clients.get(key)
        if client is None:
            with _lock:
                client = _clients.get(key)
                if client is None:
                    client = self._class(self._servers, **self._options)
                    _clients[key] = client
        return client
