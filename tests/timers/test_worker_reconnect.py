"""burraco_site/worker_consumer.py: while the broker is away the worker tries it again every
second, not on kombu's 2, 4, 6... s back-off (a RabbitMQ restart kept the worker away up to 5 s
after the broker was back)."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from celery import Celery
from kombu.exceptions import OperationalError

from burraco_site.worker_consumer import RECONNECT_EVERY, PromptConsumer


def test_the_worker_tries_a_missing_broker_every_second():
    # A "broker" that accepts and hangs up at once: every AMQP handshake fails, each attempt is seen.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    attempts: list[float] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            attempts.append(time.monotonic())
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    app = Celery("reconnect", broker=f"amqp://guest:guest@127.0.0.1:{server.getsockname()[1]}//")
    app.conf.broker_connection_max_retries = 3
    consumer = PromptConsumer.__new__(PromptConsumer)  # only its connection logic, no worker around it
    consumer.app, consumer.first_connection_attempt, consumer.broker_connection_retry_attempt = app, False, 0
    try:
        with pytest.raises(OperationalError):
            consumer.ensure_connected(app.connection_for_read())
    finally:
        server.close()
    gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    assert len(attempts) == 4, attempts  # the first try and three more
    assert all(g < RECONNECT_EVERY + 0.5 for g in gaps), gaps  # kombu's own: 2, 4, 6 s
