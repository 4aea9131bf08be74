"""The Celery worker's consumer, reconnecting to the broker every second while it is away.

Celery asks kombu to reconnect with its default back-off: 2 s after the first failure, then 4,
6, 8... (`Connection.ensure_connection`'s intervals, which Celery gives no setting for). After a
RabbitMQ restart of a few seconds the worker came back up to 5 s after the broker was ready, and
the computer's moves queued meanwhile waited for it. One attempt a second (a TCP connection and
the AMQP handshake, refused at once while the broker is down) costs nothing and puts the worker
back within a second of the broker. Named by `CELERY_WORKER_CONSUMER` in the settings.
"""

from __future__ import annotations

import functools

from celery.worker.consumer import Consumer

RECONNECT_EVERY = 1.0  # seconds between two attempts while the broker is away


class PromptConsumer(Consumer):
    def ensure_connected(self, conn):
        conn.ensure_connection = functools.partial(
            conn.ensure_connection, interval_start=RECONNECT_EVERY, interval_step=0, interval_max=RECONNECT_EVERY)
        return super().ensure_connected(conn)
