"""The table socket end to end through the real ASGI application (origin check, session auth,
routing, channel layer) on the test database."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.live import presence, transport
from games.models import Game, Hand, Move
from games.services.play import play
from games.services.table import turns
from tests.games.helpers import ORIGIN, make_user, started_table, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 3


def asgi_application():
    """The site's ASGI application, imported without starting the embedded Celery worker in
    the test process (the environment is restored so servers started later are unaffected)."""
    saved = os.environ.get("BURRACO_NO_EMBEDDED_WORKER")
    os.environ["BURRACO_NO_EMBEDDED_WORKER"] = "1"
    try:
        from burraco_site.asgi import application
    finally:
        if saved is None:
            os.environ.pop("BURRACO_NO_EMBEDDED_WORKER", None)
        else:
            os.environ["BURRACO_NO_EMBEDDED_WORKER"] = saved
    return application


@pytest.fixture(autouse=True)
def quiet_turns(monkeypatch):
    # No timers or computer moves here: this file is about the socket.
    monkeypatch.setattr(turns, "after_change", lambda game_id, version, **_: None)


@pytest.fixture
def app():
    return asgi_application()


@pytest.fixture
def published(monkeypatch) -> list[list[str]]:
    """The groups of every batch the sockets publish on the channel layer, in order."""
    batches: list[list[str]] = []
    real = transport.deliver_async

    async def spy(messages):
        messages = list(messages)
        batches.append([group for group, _frame in messages])
        await real(messages)

    monkeypatch.setattr(transport, "deliver_async", spy)
    return batches


async def connect(app, table_id: int, user=None, origin=ORIGIN):
    headers = await database_sync_to_async(ws_headers)(user, origin)
    comm = WebsocketCommunicator(app, f"/ws/table/{table_id}/", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    return comm, connected


async def receive(comm) -> dict:
    return json.loads(await comm.receive_from(timeout=TIMEOUT))


async def receive_type(comm, kind: str, limit: int = 20) -> dict:
    """The next frame of this type (presence/table frames may come first)."""
    for _ in range(limit):
        frame = await receive(comm)
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


async def hello(comm, last_version=None) -> dict:
    await comm.send_json_to({"type": "hello", "last_version": last_version})
    return await receive_type(comm, "snapshot")


@database_sync_to_async
def two_player_game(**kwargs):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = started_table([anna, bruno], **kwargs)
    return anna, bruno, Game.objects.get(table=table)


@database_sync_to_async
def force_position(game: Game, engine_game: EngineGame) -> None:
    game.state = engine_game.to_dict()
    game.to_move = engine_game.to_move
    game.save()
    Hand.objects.filter(game=game, number=1).update(deal=engine_game.deal)


@database_sync_to_async
def reload(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


@database_sync_to_async
def move_count() -> int:
    return Move.objects.count()


async def test_anonymous_socket_is_closed_with_4401(app):
    _, _, game = await two_player_game()
    comm, connected = await connect(app, game.table_id)
    assert connected
    assert await comm.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4401}


async def test_socket_from_another_origin_is_refused(app):
    anna, _, game = await two_player_game()
    comm, connected = await connect(app, game.table_id, anna, origin=(b"origin", b"http://evil.example"))
    assert not connected


async def test_unknown_table_is_closed_with_4404(app):
    anna, _, _ = await two_player_game()
    comm, connected = await connect(app, 999999, anna)
    assert await comm.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4404}


async def test_seated_player_gets_its_own_view_and_a_spectator_no_hand(app):
    anna, bruno, game = await two_player_game()
    carla = await database_sync_to_async(make_user)("carla")
    engine = EngineGame.from_dict(game.state)
    comm, _ = await connect(app, game.table_id, anna)
    snap = await hello(comm)
    assert snap["seat"] == 0 and snap["version"] == 0
    assert snap["view"]["hand"] == [c.text for c in engine.hand(0)]
    assert snap["view"]["hand_counts"] == [11, 11] and snap["deadline"]
    assert "hand" not in json.dumps(snap["table"])
    spy, _ = await connect(app, game.table_id, carla)
    snap = await hello(spy)
    assert snap["seat"] is None and "hand" not in snap["view"] and snap["view"]["stock_count"] > 0
    await comm.disconnect()
    await spy.disconnect()


async def test_action_by_a_spectator_or_for_the_wrong_seat_is_refused(app):
    anna, bruno, game = await two_player_game()
    carla = await database_sync_to_async(make_user)("carla")
    spy, _ = await connect(app, game.table_id, carla)
    await spy.send_json_to({"type": "action", "version": 0, "ref": "x1", "action": {"type": "draw"}})
    error = await receive_type(spy, "error")
    assert error == {"type": "error", "code": "not_seated", "message": "Non sei seduto a questo tavolo.",
                     "ref": "x1", "version": 0}
    other = 1 - game.to_move
    user = anna if other == 0 else bruno
    comm, _ = await connect(app, game.table_id, user)
    await comm.send_json_to({"type": "action", "version": 0, "ref": 7, "action": {"type": "draw"}})
    error = await receive_type(comm, "error")
    assert error["code"] == "not_your_turn" and error["message"] == "Non è il tuo turno" and error["ref"] == 7
    assert (await reload(game)).version == 0 and await move_count() == 0
    await spy.disconnect()
    await comm.disconnect()


async def test_illegal_meld_gives_the_engine_message_and_the_state_is_unchanged(app):
    anna, _, game = await two_player_game()
    await force_position(game, EngineGame.setup(
        Ruleset.preset("classico"), hands=["7H 8S 9H KD", "5S 5D QS"], stock="QC TS 4C", discard="QD", to_move=0))
    comm, _ = await connect(app, game.table_id, anna)
    await hello(comm)
    await comm.send_json_to({"type": "action", "version": 0, "action": {"type": "draw"}})
    event = await receive_type(comm, "event")
    assert event["version"] == 1 and event["action"] == {"type": "draw"} and event["seat"] == 0
    assert event["view"]["hand"] == ["7H", "8S", "9H", "KD", "QC"]
    before = (await reload(game)).state
    await comm.send_json_to({"type": "action", "version": 1, "ref": "m",
                             "action": {"type": "meld", "cards": ["7H", "8S", "9H"]}})
    error = await receive_type(comm, "error")
    assert error == {"type": "error", "code": "mixed_suits", "message": "Le carte non sono tutte dello stesso seme",
                     "ref": "m", "version": 1}
    after = await reload(game)
    assert after.state == before and after.version == 1 and await move_count() == 1
    await comm.disconnect()


async def test_bad_frames_get_error_frames_and_the_socket_keeps_working(app):
    anna, _, game = await two_player_game()
    comm, _ = await connect(app, game.table_id, anna)
    await comm.send_to(text_data="{not json")
    assert (await receive_type(comm, "error"))["code"] == "bad_json"
    await comm.send_to(text_data="[1, 2]")
    assert (await receive_type(comm, "error"))["code"] == "bad_frame"
    await comm.send_json_to({"type": "teleport"})
    error = await receive_type(comm, "error")
    assert error["code"] == "unknown_type" and error["message"] == "Tipo di messaggio sconosciuto."
    await comm.send_to(text_data=json.dumps({"type": "chat", "phrase": "x" * 5000}))
    assert (await receive_type(comm, "error"))["code"] == "too_large"
    await comm.send_json_to({"type": "chat", "phrase": "Che schifo di carte"})
    error = await receive_type(comm, "error")
    assert error["code"] == "bad_phrase"
    assert error["message"] == "In chat si possono usare solo le frasi proposte."
    await comm.send_json_to({"type": "ping"})
    assert await receive_type(comm, "pong") == {"type": "pong", "version": 0}  # the game's version
    snap = await hello(comm)
    assert snap["seat"] == 0
    await comm.disconnect()


async def test_a_flood_is_rate_limited_and_the_socket_recovers(app):
    anna, _, game = await two_player_game()
    comm, _ = await connect(app, game.table_id, anna)
    await hello(comm)  # nothing comes before it (docs/protocol.md)
    await asyncio.sleep(0.3)  # the token it took is back
    for _ in range(12):
        await comm.send_json_to({"type": "chat", "phrase": "ciao"})
    codes = []
    while len(codes) < 12:  # each phrase comes back as a chat frame (via the layer) or an error
        frame = await receive(comm)
        if frame["type"] in ("chat", "error"):
            codes.append(frame.get("code", "chat"))
    # A burst of 5 passes, then only what refilled meanwhile.
    assert 5 <= codes.count("chat") <= 7 and codes.count("rate_limited") == 12 - codes.count("chat")
    await asyncio.sleep(1.1)
    snap = await hello(comm)
    assert snap["type"] == "snapshot"
    await comm.disconnect()


async def test_sustained_abuse_closes_the_socket(app):
    anna, _, game = await two_player_game()
    comm, _ = await connect(app, game.table_id, anna)
    for _ in range(60):
        await comm.send_to(text_data="garbage")
    closed = False
    for _ in range(80):
        output = await comm.receive_output(timeout=TIMEOUT)
        if output["type"] == "websocket.close":
            closed = output["code"] == 4429
            break
    assert closed


async def test_two_tabs_of_one_player_both_receive_and_both_can_act(app):
    anna, bruno, game = await two_player_game()
    users = {0: anna, 1: bruno}
    mover = game.to_move
    tab1, _ = await connect(app, game.table_id, users[mover])
    tab2, _ = await connect(app, game.table_id, users[mover])
    await hello(tab1)
    await hello(tab2)
    await tab1.send_json_to({"type": "action", "version": 0, "action": {"type": "draw"}})
    e1, e2 = await receive_type(tab1, "event"), await receive_type(tab2, "event")
    assert e1 == e2 and e1["version"] == 1 and len(e1["view"]["hand"]) == 12
    discard = e1["view"]["hand"][0]
    await tab2.send_json_to({"type": "action", "version": 1, "action": {"type": "discard", "card": discard}})
    e1, e2 = await receive_type(tab1, "event"), await receive_type(tab2, "event")
    assert e1["version"] == e2["version"] == 2 and e1["action"] == {"type": "discard", "card": discard}
    # The same click from both tabs: one wins, the other is told the game moved on.
    await tab1.send_json_to({"type": "action", "version": 1, "action": {"type": "draw"}})
    error = await receive_type(tab1, "error")
    assert error["code"] == "stale_version" and error["version"] == 2
    assert (await receive_type(tab1, "snapshot"))["version"] == 2
    await tab1.disconnect()
    await tab2.disconnect()


async def test_a_lone_tab_gets_its_own_frames_directly_and_a_seat_with_two_tabs_through_the_layer(app, published):
    """An action's frames for the acting seat skip the channel layer only while the socket is
    its seat's one tab and has the version before the change; the opponent's always go through."""
    anna, bruno, game = await two_player_game()
    users = {0: anna, 1: bruno}
    mover, other = game.to_move, 1 - game.to_move
    own, theirs = transport.seat_group(game.table_id, mover), transport.seat_group(game.table_id, other)

    def action_groups() -> list[str]:
        return next(groups for groups in reversed(published) if theirs in groups)

    # Nothing reaches a socket before its `hello`; once answered, alone, with version 0: the
    # draw's frame comes straight back, only theirs is published.
    tab1, _ = await connect(app, game.table_id, users[mover])
    await hello(tab1)
    await receive_type(tab1, "presence")
    await asyncio.sleep(0.3)  # the token the hello took is back: the six actions below fit the bucket
    await tab1.send_json_to({"type": "action", "version": 0, "action": {"type": "draw"}})
    event = await receive_type(tab1, "event")
    assert event["version"] == 1 and own not in action_groups()
    # Alone, with version 1: the discard's frame comes straight back, only theirs is published.
    discard = event["view"]["hand"][0]
    await tab1.send_json_to({"type": "action", "version": 1, "action": {"type": "discard", "card": discard}})
    event = await receive_type(tab1, "event")
    assert event["version"] == 2 and event["view"]["seat"] == mover and "hand" in event["view"]
    assert own not in action_groups()

    def opponent_plays(version: int) -> int:
        play.submit_action(game_id=game.pk, seat=other, action={"type": "draw"}, actor="computer",
                           expected_version=version)
        card = EngineGame.from_dict(Game.objects.get(pk=game.pk).state).hand(other)[0].text
        return play.submit_action(game_id=game.pk, seat=other, action={"type": "discard", "card": card},
                                  actor="computer", expected_version=version + 1)

    # A second tab opens: the first hears it (before the presence frame) and publishes again.
    tab2, _ = await connect(app, game.table_id, users[mover])
    await receive_type(tab1, "presence")
    version = await database_sync_to_async(opponent_plays)(2)
    assert [(await receive_type(tab1, "event"))["version"] for _ in range(2)] == [version - 1, version]
    await hello(tab2)
    await tab1.send_json_to({"type": "action", "version": version, "action": {"type": "draw"}})
    e1, e2 = await receive_type(tab1, "event"), await receive_type(tab2, "event")
    assert e1 == e2 and e1["version"] == version + 1 and own in action_groups()
    discard = e1["view"]["hand"][0]
    await tab1.send_json_to({"type": "action", "version": version + 1, "action": {"type": "discard", "card": discard}})
    assert (await receive_type(tab2, "event"))["version"] == version + 2
    assert (await receive_type(tab1, "event"))["version"] == version + 2
    # It closes: the first tab is alone again and skips the layer again.
    await tab2.disconnect()
    await receive_type(tab1, "presence")
    version = await database_sync_to_async(opponent_plays)(version + 2)
    assert [(await receive_type(tab1, "event"))["version"] for _ in range(2)] == [version - 1, version]
    await tab1.send_json_to({"type": "action", "version": version, "action": {"type": "draw"}})
    assert (await receive_type(tab1, "event"))["version"] == version + 1
    assert own not in action_groups()
    await tab1.disconnect()


async def test_the_socket_knows_who_is_at_the_table_and_spectators_get_every_event(app, published, monkeypatch):
    """A person's action takes who is online and who watches from the socket's presence frames,
    not from a Redis look-up; a spectator who came in counts at once, and one who left too."""

    def no_lookup(table_id):
        raise AssertionError("the play path looked presence up")

    monkeypatch.setattr(presence, "at_table", no_lookup)
    anna, bruno, game = await two_player_game()
    carla = await database_sync_to_async(make_user)("carla")
    users = {0: anna, 1: bruno}
    mover, other = game.to_move, 1 - game.to_move
    public, theirs = transport.public_group(game.table_id), transport.seat_group(game.table_id, other)
    player, _ = await connect(app, game.table_id, users[mover])
    opponent, _ = await connect(app, game.table_id, users[other])
    await hello(player)  # the presence frames that came before it follow its answer
    await hello(opponent)
    await receive_type(player, "presence")  # its own arrival
    assert [s["online"] for s in (await receive_type(player, "presence"))["seats"]] == [True, True]
    # Nobody watches: the draw's public view is neither built nor published.
    await player.send_json_to({"type": "action", "version": 0, "action": {"type": "draw"}})
    event = await receive_type(player, "event")
    assert next(g for g in reversed(published) if theirs in g) == [theirs]
    # A spectator comes in: the player's socket hears it, and the discard reaches the spectator.
    watcher, _ = await connect(app, game.table_id, carla)
    frame = await receive_type(player, "presence")
    assert frame["watchers"] == 1
    assert (await hello(watcher))["version"] == 1
    discard = event["view"]["hand"][0]
    await player.send_json_to({"type": "action", "version": 1, "action": {"type": "discard", "card": discard}})
    seen = await receive_type(watcher, "event")
    assert seen["version"] == 2 and seen["action"] == {"type": "discard", "card": discard}
    assert "hand" not in seen["view"] and public in next(g for g in reversed(published) if theirs in g)
    # The turn passed to the opponent, who is online: its due time is the deadline, no one away.
    game_row = await reload(game)
    assert game_row.due_at == game_row.turn_deadline
    # The spectator leaves: nobody watches again.
    await watcher.disconnect()
    assert (await receive_type(opponent, "presence"))["watchers"] == 0
    assert [(await receive_type(opponent, "event"))["version"] for _ in range(2)] == [1, 2]
    await opponent.send_json_to({"type": "action", "version": 2, "action": {"type": "draw"}})
    assert (await receive_type(opponent, "event"))["version"] == 3
    assert public not in next(g for g in reversed(published) if transport.seat_group(game.table_id, mover) in g)
    await player.disconnect()
    await opponent.disconnect()


async def test_reconnect_with_hello_gets_the_missed_events_or_a_snapshot(app):
    anna, bruno, game = await two_player_game()
    users = {0: anna, 1: bruno}
    mover = game.to_move
    comm, _ = await connect(app, game.table_id, users[mover])
    await hello(comm)
    await comm.send_json_to({"type": "action", "version": 0, "action": {"type": "draw"}})
    await receive_type(comm, "event")
    await comm.disconnect()
    back, _ = await connect(app, game.table_id, users[mover])
    # It names the last version it saw: it gets the one event it missed, rebuilt for its seat.
    await back.send_json_to({"type": "hello", "last_version": 0})
    missed = await receive_type(back, "event")
    engine = EngineGame.from_dict((await reload(game)).state)
    assert missed["version"] == 1 and missed["resync"] is True and missed["seat"] == mover
    assert missed["view"]["hand"] == [c.text for c in engine.hand(mover)] and missed["view"]["phase"] == "play"
    assert missed["deadline"] is not None
    # Without a version (a fresh page) it gets the whole picture.
    snap = await hello(back, last_version=None)
    assert snap["version"] == 1 and snap["view"]["hand"] == [c.text for c in engine.hand(mover)]
    assert snap["view"]["phase"] == "play"
    await back.disconnect()


async def test_nothing_reaches_a_socket_before_its_hello(app):
    """docs/protocol.md: the server sends nothing until the client says `hello`. What came before
    follows the answer, less what the answer already has (the events up to its version)."""
    anna, bruno, game = await two_player_game()
    quiet, _ = await connect(app, game.table_id, anna)
    other, _ = await connect(app, game.table_id, bruno)
    await hello(other)
    await other.send_json_to({"type": "chat", "phrase": "ciao"})
    await receive_type(other, "chat")
    await database_sync_to_async(play.submit_action)(game_id=game.pk, seat=game.to_move, action={"type": "draw"},
                                                     actor="computer", expected_version=0)
    await receive_type(other, "event")
    assert await quiet.receive_nothing(timeout=0.3)
    snap = await hello(quiet)
    assert snap["version"] == 1
    later = []
    while not await quiet.receive_nothing(timeout=0.3):
        later.append(await receive(quiet))
    kinds = [frame["type"] for frame in later]
    assert "chat" in kinds and "presence" in kinds and "event" not in kinds, kinds
    await quiet.disconnect()
    await other.disconnect()


async def test_a_lost_frame_is_sent_before_the_next_one_and_none_twice(app, monkeypatch):
    """The channel layer drops what is in flight when Redis restarts: the socket sends what its
    page missed before the next frame (it knows the last version it sent), never asking the page
    to notice; a frame delivered twice (a retried publish) reaches the page once."""
    from games.consumers.table import catch_up_all

    anna, bruno, game = await two_player_game()
    users = {0: anna, 1: bruno}
    mover, other = game.to_move, 1 - game.to_move
    comm, _ = await connect(app, game.table_id, users[other])
    await hello(comm)
    await receive_type(comm, "presence")  # its own arrival
    real, kept = transport.deliver, []

    def lossy(messages):  # the first change's frames are lost, the next ones kept to send twice
        messages = list(messages)
        if kept or all(frame.get("version") != 1 for _group, frame in messages):
            kept.append(messages)
            real(messages)

    monkeypatch.setattr(transport, "deliver", lossy)

    def mover_plays(version: int, action: dict) -> int:
        return play.submit_action(game_id=game.pk, seat=mover, action=action, actor="computer",
                                  expected_version=version)

    await database_sync_to_async(mover_plays)(0, {"type": "draw"})
    assert await comm.receive_nothing(timeout=0.2), await receive(comm)  # lost: the page does not know
    await catch_up_all()  # what the channel layer's reconnect runs
    missed = await receive_type(comm, "event")
    assert missed["version"] == 1 and missed["resync"] is True
    # Lost again, and the next frame comes: the missed one first, in order.
    monkeypatch.setattr(transport, "deliver", lambda messages: None)
    card = EngineGame.from_dict((await reload(game)).state).hand(mover)[0].text
    await database_sync_to_async(mover_plays)(1, {"type": "discard", "card": card})
    monkeypatch.setattr(transport, "deliver", lossy)
    await database_sync_to_async(play.submit_action)(game_id=game.pk, seat=other, action={"type": "draw"},
                                                     actor="computer", expected_version=2)
    assert [(await receive_type(comm, "event"))["version"] for _ in range(2)] == [2, 3]
    await database_sync_to_async(real)(kept[-1])  # the same frames once more
    assert await comm.receive_nothing(timeout=0.3)
    await comm.disconnect()


async def test_presence_follows_sockets_across_tabs(app):
    anna, bruno, game = await two_player_game()
    table_id = game.table_id
    tab1, _ = await connect(app, table_id, anna)
    await hello(tab1)
    frame = await receive_type(tab1, "presence")
    assert frame["seats"][0]["online"] is True and frame["seats"][1]["online"] is False
    tab2, _ = await connect(app, table_id, anna)
    await receive_type(tab1, "presence")
    await tab2.disconnect()
    frame = await receive_type(tab1, "presence")
    assert frame["seats"][0]["online"] is True  # one tab is still open
    assert await database_sync_to_async(presence.is_online)(table_id, 0)
    bob, _ = await connect(app, table_id, bruno)
    await hello(bob)
    frame = await receive_type(tab1, "presence")
    assert [s["online"] for s in frame["seats"]] == [True, True]
    assert [s["online"] for s in (await receive_type(bob, "presence"))["seats"]] == [True, True]
    await tab1.disconnect()
    frame = await receive_type(bob, "presence")
    assert [s["online"] for s in frame["seats"]] == [False, True]
    assert await database_sync_to_async(presence.seats_online)(table_id, [0, 1]) == {0: False, 1: True}
    await bob.disconnect()


async def test_chat_phrase_reaches_everyone_at_the_table(app):
    anna, bruno, game = await two_player_game()
    a, _ = await connect(app, game.table_id, anna)
    b, _ = await connect(app, game.table_id, bruno)
    await hello(b)
    await receive_type(b, "presence")  # b has joined the table's groups
    await a.send_json_to({"type": "chat", "phrase": "bella_mano"})
    frame = await receive_type(b, "chat")
    assert frame == {"type": "chat", "seat": 0, "username": "anna", "phrase": "bella_mano", "text": "Bella mano!"}
    await a.disconnect()
    await b.disconnect()


async def test_a_socket_on_a_waiting_table_follows_the_start(app):
    @database_sync_to_async
    def waiting_table():
        from games.services.table import seating

        anna, bruno = make_user("anna"), make_user("bruno")
        table = seating.create_table(creator=anna, ruleset=Ruleset.preset("classico"))
        return anna, bruno, table

    anna, bruno, table = await waiting_table()
    comm, _ = await connect(app, table.pk, anna)
    snap = await hello(comm)
    assert snap["view"] is None and snap["seat"] == 0 and snap["table"]["status"] == "waiting"

    @database_sync_to_async
    def bruno_sits():
        from games.services.table import seating

        seating.sit(table_id=table.pk, user=bruno, position=1)

    watcher, _ = await connect(app, table.pk, bruno)  # bruno watches, then sits: his socket moves
    assert (await hello(watcher))["seat"] is None
    await bruno_sits()
    frame = await receive_type(comm, "snapshot")
    assert frame["version"] == 0 and len(frame["view"]["hand"]) == 11
    moved = await receive_type(watcher, "snapshot")
    assert moved["seat"] == 1 and len(moved["view"]["hand"]) == 11
    await watcher.disconnect()
    await comm.disconnect()


async def test_back_takes_the_seat_back_from_the_computer(app):
    anna, bruno, game = await two_player_game()

    @database_sync_to_async
    def cover(position: int) -> None:
        from games.models import Seat

        Seat.objects.filter(table_id=game.table_id, position=position).update(
            covered_by_computer=True, consecutive_timeouts=2)

    await cover(0)
    comm, _ = await connect(app, game.table_id, anna)
    await hello(comm)
    frame = await receive_type(comm, "presence")
    assert frame["seats"][0]["covered_by_computer"] is True
    await comm.send_json_to({"type": "back"})
    frame = await receive_type(comm, "presence")
    assert frame["seats"][0]["covered_by_computer"] is False
    seat = await database_sync_to_async(lambda: game.table.seats.get(position=0))()
    assert not seat.covered_by_computer and seat.consecutive_timeouts == 0
    await comm.disconnect()


async def test_refusals_speak_the_players_language(app):
    anna, _, game = await two_player_game()

    @database_sync_to_async
    def english():
        anna.language = "en"
        anna.save(update_fields=["language"])

    await english()
    comm, _ = await connect(app, game.table_id, anna)
    await hello(comm)
    await comm.send_json_to({"type": "teleport"})
    assert (await receive_type(comm, "error"))["message"] == "Unknown message type."
    await comm.send_json_to({"type": "chat", "phrase": "free text"})
    assert (await receive_type(comm, "error"))["message"] == "Only the offered phrases can be used in the chat."
    await comm.send_json_to({"type": "chat", "phrase": "grazie"})
    assert (await receive_type(comm, "chat"))["text"] == "Grazie"  # one text for the whole table
    await comm.send_json_to({"type": "action", "action": {"type": "discard", "card": "KD"}})
    error = await receive_type(comm, "error")  # an engine refusal: not her turn, or not drawn yet
    assert error["code"] in ("must_draw_first", "not_your_turn")
    assert error["message"] in ("Draw first: from the stock, or the whole discard pile", "It is not your turn")
    await comm.disconnect()
