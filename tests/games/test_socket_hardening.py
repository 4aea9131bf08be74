"""The table socket's defences: origin by scheme, host and port; unrouted paths; a per-person
socket cap; an abuse score that forgives; pings in the bucket; bounded database work; a full site."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from burraco_site import dbthreads
from burraco_site.origin import origin_allowed
from games.consumers import base
from games.engine import Ruleset
from games.models import Table
from games.services.errors import ServiceError
from games.services.table.seating import create_table
from tests.conftest import ROOT
from tests.games.helpers import make_user, session_cookie, started_table, ws_headers

# `quiet_turns` is its autouse fixture, here too: no timers, this file is about the socket.
from tests.games.test_consumers import TIMEOUT, asgi_application, hello, quiet_turns, receive_type  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def app():
    return asgi_application()


@database_sync_to_async
def a_game():
    anna, bruno = make_user("anna"), make_user("bruno")
    return anna, started_table([anna, bruno])


def scope(origin: str | None, host: str = "127.0.0.1:8000", scheme: str = "ws") -> dict:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "websocket", "scheme": scheme, "headers": headers}


def test_the_origin_must_match_scheme_host_and_port():
    assert origin_allowed(scope("http://127.0.0.1:8000"))
    assert not origin_allowed(scope("http://127.0.0.1:9000"))  # another program on the same host
    assert not origin_allowed(scope("https://127.0.0.1:8000"))  # another scheme
    assert not origin_allowed(scope("http://evil.example:8000"))
    assert not origin_allowed(scope(None))
    assert not origin_allowed(scope("http://evil.example", host="evil.example"))  # not an allowed host
    assert origin_allowed(scope("https://127.0.0.1:8443", host="127.0.0.1:8443", scheme="wss"))
    with override_settings(CSRF_TRUSTED_ORIGINS=["https://burraco.example.it"]):
        assert origin_allowed(scope("https://burraco.example.it"))


async def test_a_page_on_another_port_of_the_same_host_is_refused(app):
    anna, table = await a_game()
    headers = await database_sync_to_async(ws_headers)(anna, (b"origin", b"http://127.0.0.1:9999"))
    comm = WebsocketCommunicator(app, f"/ws/table/{table.pk}/", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert not connected


@pytest.mark.parametrize("path", ["/ws/table/abc/", "/ws/nothing/", "/ws/"])
async def test_an_unrouted_socket_path_is_closed_with_4404(app, path, caplog):
    anna, _table = await a_game()
    headers = await database_sync_to_async(ws_headers)(anna)
    comm = WebsocketCommunicator(app, path, headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    assert await comm.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4404}
    assert "Traceback" not in caplog.text and "No route found" not in caplog.text


async def test_a_person_may_open_five_sockets_at_a_table_not_more(app):
    anna, table = await a_game()
    headers = await database_sync_to_async(ws_headers)(anna)
    tabs = []
    for _ in range(base.MAX_SOCKETS_PER_TABLE):
        comm = WebsocketCommunicator(app, f"/ws/table/{table.pk}/", headers=headers)
        assert (await comm.connect(timeout=TIMEOUT))[0]
        await hello(comm)
        await receive_type(comm, "presence")
        tabs.append(comm)
    extra = WebsocketCommunicator(app, f"/ws/table/{table.pk}/", headers=headers)
    assert (await extra.connect(timeout=TIMEOUT))[0]
    assert await extra.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4409}
    await tabs.pop().disconnect()
    again = WebsocketCommunicator(app, f"/ws/table/{table.pk}/", headers=headers)
    assert (await again.connect(timeout=TIMEOUT))[0]
    await hello(again)
    assert (await receive_type(again, "presence"))["type"] == "presence"  # a place came free
    for comm in [*tabs, again]:
        await comm.disconnect()


def test_the_abuse_score_forgives_a_steady_trickle_and_stops_a_flood(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(base.time, "monotonic", lambda: now[0])
    score = base.AbuseScore()
    for _ in range(20 * 60):  # one refused frame a second (a page a little over its rate) for 20 minutes
        now[0] += 1.0
        assert not score.add(), "a page rate-limited about once a second is never closed"
    flood = base.AbuseScore()
    closed_after = next(i for i in range(1, 200) if (now.__setitem__(0, now[0] + 0.05) or flood.add()))
    assert 50 <= closed_after <= 60  # 20 bad frames a second: closed within about three seconds


async def test_ping_draws_from_the_bucket_and_pong_carries_the_version(app, monkeypatch):
    # The bucket's clock stands still: on a loaded machine the eight pings may span more than
    # the 0.2 s a token takes to refill, and the count would then measure the machine.
    monkeypatch.setattr(base, "clock", lambda: 1000.0)
    anna, table = await a_game()
    headers = await database_sync_to_async(ws_headers)(anna)
    comm = WebsocketCommunicator(app, f"/ws/table/{table.pk}/", headers=headers)
    await comm.connect(timeout=TIMEOUT)
    for _ in range(8):
        await comm.send_json_to({"type": "ping"})
    answers = []
    while len(answers) < 8:
        frame = json.loads(await comm.receive_from(timeout=TIMEOUT))
        if frame["type"] in ("pong", "error"):
            answers.append(frame)
    pongs = [f for f in answers if f["type"] == "pong"]
    assert 5 <= len(pongs) <= 6 and all(f["version"] == 0 for f in pongs)
    assert {f["code"] for f in answers if f["type"] == "error"} == {"rate_limited"}
    await comm.disconnect()


async def test_work_past_the_bounded_queue_is_refused_with_busy(app):
    started = asyncio.Event()
    release = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow():
        loop.call_soon_threadsafe(started.set)
        asyncio.run_coroutine_threadsafe(release.wait(), loop).result(5)
        return "done"

    with override_settings(DB_QUEUE_MAX=1):
        first = asyncio.ensure_future(dbthreads.run_db(slow)())
        await started.wait()
        with pytest.raises(dbthreads.Busy):
            await dbthreads.run_db(lambda: "second")()
        release.set()
        assert await first == "done"
        assert await dbthreads.run_db(lambda: "third")() == "third"  # the queue drained


def test_past_the_sized_number_of_tables_new_ones_are_refused_in_italian_and_english():
    from django.utils import translation

    anna = make_user("anna")
    with override_settings(MAX_TABLES_IN_PLAY=2):
        create_table(creator=anna, ruleset=Ruleset.preset("classico"))
        create_table(creator=anna, ruleset=Ruleset.preset("classico"))
        with pytest.raises(ServiceError) as refused:
            create_table(creator=anna, ruleset=Ruleset.preset("classico"))
        assert refused.value.code == "site_full"
        assert refused.value.message.startswith("Il sito è al completo")
        with translation.override("en"), pytest.raises(ServiceError) as refused:
            create_table(creator=anna, ruleset=Ruleset.preset("classico"))
        assert refused.value.message.startswith("The site is full")
    assert Table.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_frame_over_daphnes_limit_ends_the_socket_without_a_traceback(live_site):
    """Daphne's WebSocket layer (autobahn) fails a connection whose message is over 1 MiB before
    the consumer sees it; the server logs no traceback and the page reconnects as after any drop."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    anna = make_user("anna")
    table = started_table([anna, make_user("bruno")])
    base = live_site.replace("http://", "ws://")
    with connect(f"{base}/ws/table/{table.pk}/", origin=live_site, max_size=None,
                 additional_headers={"Cookie": session_cookie(anna).decode()}, open_timeout=5) as sock:
        sock.send(json.dumps({"type": "hello", "last_version": None}))
        assert json.loads(sock.recv(timeout=5))["type"] in ("presence", "snapshot")
        sock.send("x" * (1024 * 1024 + 10))
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(20):
                sock.recv(timeout=5)
    assert closed.value.rcvd is None or closed.value.rcvd.code == 1009  # dropped, or "message too big"
    port = live_site.rsplit(":", 1)[1]
    log = (ROOT / "test-output" / f"daphne-{port}.log").read_text()
    assert "Traceback" not in log
