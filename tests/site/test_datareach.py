"""burraco_site/datareach.py: a Daphne cut from its data closes its sockets with 4503 and refuses
handshakes until its data answers again; a refusal (a service restarting) is no cut."""

from __future__ import annotations

import asyncio
import socket

from burraco_site.datareach import CLOSE_MOVE_ON, Reach, StepAsideWhenCut, answers, targets

PG, REDIS = ("10.0.0.5", 5432), ("10.0.0.6", 6379)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def probing(results: dict):
    async def probe(target):
        return results[target]
    return probe


async def test_a_cut_is_declared_after_the_silence_and_ends_when_every_address_answers():
    clock = Clock()
    reach = Reach([PG, REDIS], cut_after=4, clock=clock)
    results = {PG: True, REDIS: False}
    for _ in range(4):  # Redis silent for 4 s: not yet
        clock.now += 1
        await reach.probe(probing(results))
    assert not reach.cut
    clock.now += 1
    await reach.probe(probing(results))
    assert reach.cut and reach.cuts == 1
    results[REDIS] = True
    clock.now += 1
    await reach.probe(probing(results))
    assert not reach.cut


async def test_a_refused_connection_is_an_answer():
    # A port nobody listens on, on this host: refused at once, so the host is there.
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    assert await answers(("127.0.0.1", port)) is True
    assert await answers(("name.that.does.not.resolve.invalid", 5432)) is False


class App:
    """An application that accepts the socket and then waits for the disconnect."""

    def __init__(self) -> None:
        self.sent_after_close = 0

    async def __call__(self, scope, receive, send):
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass
        await send({"type": "websocket.send", "text": "late"})  # after the close: goes nowhere


async def test_a_cut_closes_open_sockets_with_4503_and_refuses_new_handshakes():
    clock = Clock()
    reach = Reach([PG], cut_after=4, clock=clock)
    reach.task = asyncio.current_task()  # no probing loop: the test probes by hand
    middleware = StepAsideWhenCut(App(), reach)
    inbox: asyncio.Queue = asyncio.Queue()
    sent: list[dict] = []

    async def send(message):
        sent.append(message)
        if message["type"] == "websocket.close":
            await inbox.put({"type": "websocket.disconnect", "code": message.get("code")})

    await inbox.put({"type": "websocket.connect"})
    running = asyncio.create_task(middleware({"type": "websocket"}, inbox.get, send))
    await asyncio.sleep(0.01)
    assert sent == [{"type": "websocket.accept"}] and len(reach.sockets) == 1

    clock.now += 5
    await reach.probe(probing({PG: False}))
    await asyncio.wait_for(running, 1)
    assert sent[1:] == [{"type": "websocket.close", "code": CLOSE_MOVE_ON}]  # nothing after it
    assert reach.sockets == {}

    refused: list[dict] = []
    connect: asyncio.Queue = asyncio.Queue()
    await connect.put({"type": "websocket.connect"})

    async def record(message):
        refused.append(message)

    await middleware({"type": "websocket"}, connect.get, record)
    assert refused == [{"type": "websocket.close"}]  # before an accept: Daphne answers 403

    await reach.probe(probing({PG: True}))
    assert not reach.cut
    again: list[dict] = []
    inbox = asyncio.Queue()
    await inbox.put({"type": "websocket.connect"})

    async def record_again(message):
        again.append(message)

    accepted = asyncio.create_task(middleware({"type": "websocket"}, inbox.get, record_again))
    await asyncio.sleep(0.01)
    assert again == [{"type": "websocket.accept"}]
    await inbox.put({"type": "websocket.disconnect", "code": 1000})
    await asyncio.wait_for(accepted, 1)


def test_nothing_is_watched_without_postgresql_or_redis():
    sqlite = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "x"}}
    in_memory = {"default": {"BACKEND": "burraco_site.layers.InMemoryChannelLayer"}}
    assert targets(sqlite, in_memory) == []
    assert not Reach([], cut_after=4).watching
    postgres = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db.example", "PORT": ""}}
    redis = {"default": {"CONFIG": {"hosts": [{"address": "redis://cache.example:6380/4"}]}}}
    assert targets(postgres, redis) == [("db.example", 5432), ("cache.example", 6380)]
