"""WebSocket consumers: thin edges that authenticate, parse, rate-limit and hand to the services.

`TableConsumer` serves `/ws/table/<id>/` (see docs/protocol.md); `LobbyConsumer` serves
`/ws/lobby/` (the public list and "Gioca con persone"). No game state lives here: every frame
comes from the services through the channel layer, and a socket only ever joins its own seat's
group (or the spectators' public group), and a lobby socket its own person's group.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from burraco_site.dbthreads import Busy, run_db
from burraco_site.wsauth import authenticate, session_and_user

from .engine import IllegalMove
from .selectors import lobby as lobby_selectors
from .selectors import notifications as notification_selectors
from .selectors import social as social_selectors
from .selectors import tables as table_selectors
from .selectors import tournaments as tournament_selectors
from .services import broadcast, challenges, matchmaking, notifications, play, presence, rematch, social, tournaments
from .services.errors import ServiceError, message
from .services.tables import take_seat_back

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 4096
BUCKET_CAPACITY = 5  # frames in a burst
BUCKET_RATE = 5.0  # frames per second, sustained
ABUSE_LIMIT = 50.0  # unusable frames, less what has decayed, before the socket is closed
ABUSE_DECAY = 1.0  # unusable frames forgiven per second
MAX_SOCKETS_PER_TABLE = 5  # one person's sockets at one table

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4409
CLOSE_ABUSE = 4429

class TokenBucket:
    """At most `capacity` frames at once, refilled at `rate` per second."""

    def __init__(self, capacity: float = BUCKET_CAPACITY, rate: float = BUCKET_RATE) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = capacity
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class AbuseScore:
    """Unusable frames, forgiven at `decay` per second: only sustained abuse reaches the limit."""

    def __init__(self, limit: float = ABUSE_LIMIT, decay: float = ABUSE_DECAY) -> None:
        self.limit = limit
        self.decay = decay
        self.score = 0.0
        self.stamp = time.monotonic()

    def add(self) -> bool:
        """Count one unusable frame; True when the limit is reached."""
        now = time.monotonic()
        self.score = max(0.0, self.score - (now - self.stamp) * self.decay) + 1
        self.stamp = now
        return self.score >= self.limit


class SocketConsumer(AsyncWebsocketConsumer):
    """Channels' consumer without its per-message database clean-up.

    Channels runs `close_old_connections` on its one shared thread before *every* message a
    consumer handles (each frame from the client, each frame from the channel layer): a thread
    hop per frame. These consumers touch the database only through `run_db`, which takes and
    gives back its own connection, so there is nothing to clean up.
    """

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def _parse(self, text_data: str | None) -> dict[str, Any] | None:
        """The client's frame as a dict with a string `type`, or None after answering `_bad`
        (no text, over MAX_FRAME_BYTES, not JSON, not an object with a type)."""
        if text_data is None:
            await self._bad("bad_frame")
            return None
        if len(text_data) > MAX_FRAME_BYTES or len(text_data.encode()) > MAX_FRAME_BYTES:
            await self._bad("too_large")
            return None
        try:
            frame = json.loads(text_data)
        except ValueError:
            await self._bad("bad_json")
            return None
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self._bad("bad_frame")
            return None
        return frame

    async def _bad(self, code: str, ref=None) -> None:
        raise NotImplementedError

    async def _error(self, code: str, message: str, ref=None) -> None:
        raise NotImplementedError

    where = "socket"  # for the log

    async def _handle(self, handler, frame: dict[str, Any], ref) -> None:
        """Run one frame's handler: the one place where a refusal (the services' `ServiceError`,
        the engine's `IllegalMove`) or an outage becomes an error frame; nothing was written."""
        try:
            await handler(frame, ref)
        except (ServiceError, IllegalMove) as exc:
            await self._refused(exc, ref)
        except (DatabaseError, RedisError):
            # PostgreSQL or Redis (presence, cache) is down: nothing was written; the socket stays.
            log.warning("%s: the database or Redis is unavailable", self.where, exc_info=True)
            await self._error("unavailable", message("unavailable"), ref)
        except Busy:
            await self._error("busy", message("busy"), ref)

    async def _refused(self, exc: ServiceError | IllegalMove, ref) -> None:
        await self._error(exc.code, exc.message, ref)


class SocketHeartbeat:
    """One heartbeat for all the sockets of one kind in this process: every `interval()` seconds
    a single `beat` over all of them (one Redis or database round trip), instead of a task and a
    round trip per socket. Each kind keeps its own set of sockets and its own task.

    With `slices` above 1 each socket is still beaten once an interval, but a slice of them at a
    time, `slices` times an interval: one beat of a thousand table sockets held its process
    (and Redis) for tens of milliseconds at once, every interval, in the actions' latency tail."""

    sockets: set
    task: asyncio.Task | None
    slices: int = 1

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls.sockets, cls.task = set(), None

    @classmethod
    def add(cls, consumer) -> None:
        cls.sockets.add(consumer)
        loop = asyncio.get_running_loop()
        if cls.task is None or cls.task.done() or cls.task.get_loop() is not loop:
            cls.task = loop.create_task(cls._run())

    @classmethod
    def discard(cls, consumer) -> None:
        cls.sockets.discard(consumer)

    @classmethod
    async def _run(cls) -> None:
        turn = 0
        while cls.sockets:
            await asyncio.sleep(cls.interval() / cls.slices)
            members = [c for c in cls.sockets if cls.slices == 1 or hash(c) % cls.slices == turn]
            turn = (turn + 1) % cls.slices
            if members:
                await cls.beat(members)

    @classmethod
    def interval(cls) -> float:
        return presence.HEARTBEAT_SECONDS

    @classmethod
    async def beat(cls, sockets: list) -> None:
        raise NotImplementedError


class Heartbeats(SocketHeartbeat):
    """The table sockets: each is re-added to its table's presence (so a flushed Redis knows
    them again within one interval)."""

    slices = 15  # a fifteenth of them every second at the default 15 s

    @classmethod
    async def beat(cls, sockets: list[TableConsumer]) -> None:
        beats = [(c.table_id, c.position, c.user_id, c.channel_name) for c in sockets]
        try:
            back = await run_db(presence.heartbeat_many)(beats)
            for table_id in back:  # seats that read as offline since a Redis restart
                frame = await run_db(table_selectors.presence_frame)(table_id)
                await broadcast.deliver_async([(broadcast.all_group(table_id), frame)])
        except Exception:  # noqa: BLE001 - Redis or the database is down: the next beat tries again
            log.warning("presence heartbeat failed for %d sockets", len(beats))


_leaving: set[asyncio.Task] = set()  # the grace tasks below, kept referenced until they finish


async def _left_after_grace(table_id: int, position: int) -> None:
    try:
        await asyncio.sleep(rematch.LEAVE_GRACE_SECONDS)
        await run_db(rematch.person_left)(table_id=table_id, position=position)
    except Exception:  # noqa: BLE001 - the offer stays open; nobody is worse off
        log.warning("table %s: could not end the rematch offer of seat %s", table_id, position, exc_info=True)
    finally:
        _leaving.discard(asyncio.current_task())


class TableConsumer(SocketConsumer):
    """One socket of one person at one table: a seated player or a spectator.

    The facts an action needs (table, game, seat, players, language) are read once when the socket
    opens and kept on it; a `table` frame about this person's own seating refreshes them.
    """

    table_id: int
    position: int | None = None
    game_id: int | None = None
    finished = False  # the table's match is over (a rematch offer may be open)
    alone = False  # the only socket of its seat (no other tab): its own frames need not go round the layer
    seen: presence.Seen | None = None  # who is at the table, as the last presence frame said
    groups_joined: list[str]

    @property
    def where(self) -> str:
        return f"table {self.table_id}"

    async def connect(self) -> None:
        self.groups_joined = []
        self.bucket = TokenBucket()
        self.abuse = AbuseScore()
        self.version: int | None = None
        self.counted = False
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        # Accept first, then close with an application code: a refused handshake reaches the
        # browser only as 1006, a close code after accept tells the page why.
        await self.accept()
        try:
            opened = await run_db(self._open)(self.scope.get("session_key"))
        except Exception:  # noqa: BLE001 - the database or Redis is down: the page will retry
            log.warning("table %s: could not open a socket", self.table_id, exc_info=True)
            await self.close(code=1013)  # try again later
            return
        if opened["refused"]:
            await self.close(code={"unauthenticated": CLOSE_UNAUTHENTICATED, "not_found": CLOSE_NOT_FOUND,
                                   "forbidden": CLOSE_FORBIDDEN, "too_many": CLOSE_TOO_MANY}[opened["refused"]])
            return
        user = self.scope["user"]
        self.user_id = user.pk
        self.language = getattr(user, "language", "") or settings.LANGUAGE_CODE
        self.players = opened["players"]
        self.game_id = opened["game_id"]
        self.position = opened["position"]
        self.finished = opened["status"] == "finished"
        self.counted = True
        await self._join_groups()
        await self._count_tabs(opened["seat_sockets"])
        self._see(broadcast.seen_of(opened["presence"]))
        await broadcast.deliver_async([(broadcast.all_group(self.table_id), opened["presence"])])
        Heartbeats.add(self)

    def _open(self, session_key: str | None) -> dict[str, Any]:
        """On the thread pool, in one call: who this is, and the socket's place at the table."""
        self.scope["session"], user = session_and_user(session_key)
        self.scope["user"] = user
        if not user.is_authenticated:
            return {"refused": "unauthenticated"}
        return table_selectors.open_socket(self.table_id, user, self.scope["session"], self.channel_name,
                                           MAX_SOCKETS_PER_TABLE)

    async def _join_groups(self) -> None:
        await self._leave_groups()
        groups = [broadcast.all_group(self.table_id)]
        groups.append(
            broadcast.seat_group(self.table_id, self.position) if self.position is not None
            else broadcast.public_group(self.table_id)
        )
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined = groups

    async def _join(self, position: int | None) -> None:
        """This person's seat changed (from another tab or the lobby): move the socket."""
        old = self.position
        self.position = position
        await self._join_groups()
        await run_db(presence.disconnected)(self.table_id, old, self.user_id, self.channel_name)
        sockets = await run_db(presence.connected)(self.table_id, position, self.user_id, self.channel_name)
        await self._count_tabs(sockets.seats.get(position, 0) if position is not None else 0)
        await self._announce_presence()

    async def _count_tabs(self, sockets: int) -> None:
        """This socket is one of `sockets` at its seat: alone, or the seat's other tabs are told
        they no longer are (a `seat.tabs` message on the seat's group, never sent to a page)."""
        self.alone = self.position is not None and sockets == 1
        if self.position is not None and sockets > 1:
            await self._tell_tabs(sockets)

    async def _tell_tabs(self, count: int) -> None:
        await self.channel_layer.group_send(broadcast.seat_group(self.table_id, self.position),
                                            {"type": "seat.tabs", "count": count})

    async def seat_tabs(self, message: dict[str, Any]) -> None:
        """Another tab of this seat opened or closed (from the seat's group)."""
        self.alone = message["count"] == 1

    def _see(self, seen: dict[str, Any]) -> None:
        self.seen = presence.Seen(frozenset(seen["online"]), seen["watched"])

    async def _leave_groups(self) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = []

    async def _announce_presence(self, sockets: presence.Sockets | None = None) -> None:
        frame = await run_db(table_selectors.presence_frame)(self.table_id, sockets)
        await broadcast.deliver_async([(broadcast.all_group(self.table_id), frame)])

    async def disconnect(self, code: int) -> None:
        Heartbeats.discard(self)
        await self._leave_groups()
        if self.counted:
            try:
                last = await run_db(presence.disconnected)(self.table_id, self.position, self.user_id,
                                                           self.channel_name)
                sockets = await run_db(presence.sockets_at)(self.table_id)
                if self.position is not None and not last:  # the seat's other tabs (told first): one may be alone
                    await self._tell_tabs(sockets.seats.get(self.position, 0))
                await self._announce_presence(sockets)  # a seat, or the count of who watches, changed
                if last and self.finished:
                    # A rematch offer ends when a person leaves the finished table, unless their
                    # page was only reloading (the service looks again after the grace).
                    _leaving.add(asyncio.get_running_loop().create_task(
                        _left_after_grace(self.table_id, self.position)))
            except Exception:  # noqa: BLE001 - the socket is gone either way; its entry expires
                log.warning("table %s: presence not updated on disconnect", self.table_id)
            self.position = None

    # ------------------------------------------------------------------ from the channel layer

    async def frame_send(self, message: dict[str, Any]) -> None:
        if message.get("has_view") and message.get("view_seat", self.position) != self.position:
            return  # never forward another seat's view, whatever group it came through
        version = message.get("version")
        if isinstance(version, int):
            self.version = max(self.version or 0, version)
        await self.send(text_data=message["text"])
        if message.get("seen") is not None:
            self._see(message["seen"])
        if message.get("kind") == "table":
            self.finished = message["table"].get("status") == "finished"
            await self._follow_seating(message["table"])

    async def _follow_seating(self, table: dict[str, Any]) -> None:
        """Someone sat or stood up, or the game started: if this person's seat changed (from
        another tab or the lobby), move this socket to its new group and send it a snapshot."""
        if table.get("status") == "playing" and self.game_id is None:
            self.game_id = await run_db(table_selectors.game_id_of)(self.table_id)
        username = self.scope["user"].get_username()
        position = next((s["position"] for s in table["seats"] if s["username"] == username), None)
        if position != self.position:
            await self._join(position)
            await self._send_snapshot()

    # ------------------------------------------------------------------ from the client

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = await self._parse(text_data)
        if frame is None:
            return
        kind = frame["type"]
        ref = frame.get("ref") if isinstance(frame.get("ref"), (str, int)) else None
        if not self.bucket.take():
            await self._bad("rate_limited", ref=ref)
            return
        with translation.override(self.language):
            await self._dispatch(kind, frame, ref)

    async def _dispatch(self, kind: str, frame: dict[str, Any], ref) -> None:
        handler = {
            "hello": self._on_hello,
            "ping": self._on_ping,
            "action": self._on_action,
            "chat": self._on_chat,
            "back": self._on_back,
            "abandon": self._on_abandon,
            "rematch": self._on_rematch,
        }.get(kind)
        if handler is None:
            await self._bad("unknown_type", ref=ref)
            return
        await self._handle(handler, frame, ref)

    async def _refused(self, exc: ServiceError | IllegalMove, ref) -> None:
        await self._error(exc.code, exc.message, ref)
        if exc.code == "stale_version":
            await self._send_snapshot()

    async def _on_hello(self, frame: dict[str, Any], ref) -> None:
        last = frame.get("last_version")
        last = last if isinstance(last, int) and not isinstance(last, bool) else None
        frames = await run_db(table_selectors.resync_frames)(self.table_id, self.position, last)
        for out in frames:
            await self._send(out)
        if self.finished:  # a rematch frame missed while reconnecting is not sent again: say it now
            offer = await run_db(rematch.offer_frame)(self.table_id)
            if offer is not None:
                await self._send(offer)

    async def _on_ping(self, frame: dict[str, Any], ref) -> None:
        """Keep-alive; the answer carries the game's version, so a page that missed a frame
        learns it at the next ping without waiting for the next move."""
        version = await run_db(table_selectors.current_version)(self.table_id) if self.game_id else None
        await self._send({"type": "pong", "version": version})

    async def _on_action(self, frame: dict[str, Any], ref) -> None:
        action = frame.get("action")
        expected = frame.get("version")
        if not isinstance(action, dict) or not (
            expected is None or (isinstance(expected, int) and not isinstance(expected, bool))
        ):
            await self._bad("bad_frame", ref=ref)
            return
        if self.position is None:
            await self._error("not_seated", message("not_seated"), ref)
            return
        if self.game_id is None:
            await self._error("not_playing", message("not_playing"), ref)
            return
        applied = await play.apply_action_async(
            game_id=self.game_id, seat=self.position, action=action, actor="person",
            expected_version=expected, user=self.scope["user"], seen=self.seen,
        )
        if applied.seen is not None:
            self.seen = applied.seen
        await self._deliver_own(applied.messages)
        if applied.needs_follow_up:
            try:
                await run_db(applied.follow_up)()
            except Exception:  # noqa: BLE001 - the move is committed; due_at brings the scheduler to it
                log.warning("table %s: follow-up of v%s failed", self.table_id, applied.version, exc_info=True)

    async def _on_chat(self, frame: dict[str, Any], ref) -> None:
        phrase = frame.get("phrase")
        with translation.override(settings.LANGUAGE_CODE):  # one text for all; pages may show their own
            text = table_selectors.phrase_text(phrase) if isinstance(phrase, str) else None
        if text is None:
            await self._error("bad_phrase", message("bad_phrase"), ref)
            return
        if self.position is None:
            await self._error("not_seated", message("not_seated"), ref)
            return
        out = {
            "type": "chat",
            "seat": self.position,
            "username": self.scope["user"].get_username(),
            "phrase": phrase,
            "text": text,
        }
        await broadcast.deliver_async([(broadcast.all_group(self.table_id), out)])

    async def _on_back(self, frame: dict[str, Any], ref) -> None:
        await run_db(take_seat_back)(table_id=self.table_id, user=self.scope["user"])

    async def _on_rematch(self, frame: dict[str, Any], ref) -> None:
        """Yes or no to a rematch at the finished table; the `rematch` frame to all says the rest."""
        answer = frame.get("answer")
        if answer not in ("yes", "no"):
            await self._bad("bad_frame", ref=ref)
            return
        service = rematch.offer_rematch if answer == "yes" else rematch.decline_rematch
        await run_db(service)(table_id=self.table_id, user=self.scope["user"])

    async def _on_abandon(self, frame: dict[str, Any], ref) -> None:
        """Give the match up; the service checks the seat (the `match_over` frame says the rest)."""
        await run_db(play.abandon_match)(table_id=self.table_id, user=self.scope["user"])

    # ------------------------------------------------------------------ sending

    async def _deliver_own(self, messages: broadcast.Messages) -> None:
        """The frames of a change this socket made. Its own seat's frames go straight to it, not
        round the channel layer (a Redis publish and a read back: a third of an action's cost in
        the layer), when nothing can come between: it is its seat's only tab, and it has the
        version just before the change, so no earlier frame is still on its way. Every other
        recipient's frames, and these too otherwise, go through the layer as always."""
        own = broadcast.seat_group(self.table_id, self.position) if self.position is not None else None
        mine = [frame for group, frame in messages if group == own]
        version = mine[0].get("version") if mine else None
        if self.alone and isinstance(version, int) and self.version == version - 1:
            for frame in mine:
                await self._send(frame)
            messages = [(group, frame) for group, frame in messages if group != own]
        await broadcast.deliver_async(messages)

    async def _send(self, frame: dict[str, Any]) -> None:
        version = frame.get("version")
        if isinstance(version, int):
            self.version = max(self.version or 0, version)
        await self.send(text_data=broadcast.frame_text(frame))

    async def _send_snapshot(self) -> None:
        frame = await run_db(table_selectors.table_snapshot)(self.table_id, self.position)
        if frame is not None:
            await self._send(frame)

    async def _error(self, code: str, message: str, ref=None) -> None:
        # Engine and service texts are Italian at the source; show them in the player's language.
        with translation.override(self.language):
            message = _(str(message))
        version = self.version
        if version is None and self.game_id is not None and code not in ("unavailable", "busy"):
            version = await run_db(table_selectors.current_version)(self.table_id)
        await self._send({"type": "error", "code": code, "message": message, "ref": ref, "version": version})

    async def _bad(self, code: str, ref=None) -> None:
        """A frame the server could not use: say so, and close only on sustained abuse."""
        if self.abuse.add():
            await self.close(code=CLOSE_ABUSE)
            return
        with translation.override(getattr(self, "language", settings.LANGUAGE_CODE)):
            text = message(code)
        await self.send(text_data=json.dumps(
            {"type": "error", "code": code, "message": text, "ref": ref, "version": self.version}
        ))


class NotFoundConsumer(SocketConsumer):
    """Any WebSocket path that is not routed: accepted and closed with 4404, no traceback."""

    async def connect(self) -> None:
        await self.accept()
        await self.close(code=CLOSE_NOT_FOUND)


class EchoConsumer(SocketConsumer):
    """The load benchmark's baseline (routed only with BURRACO_BENCH_ECHO): each frame goes out
    through one group_send on the channel layer and comes back padded to the asked size, so the
    cost of Daphne, the layer and a socket send can be measured without any game work."""

    async def connect(self) -> None:
        await self.accept()
        try:
            _session, user = await authenticate(self.scope)
        except Exception:  # noqa: BLE001 - Busy, or the database is down: as the table socket does
            await self.close(code=1013)  # try again later
            return
        if not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.group = "echo." + self.channel_name.replace("!", ".")[-60:]
        await self.channel_layer.group_add(self.group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = json.loads(text_data or "{}")
        pad = min(int(frame.get("pad", 0)), 1 << 16)
        await self.channel_layer.group_send(self.group, {"type": "echo.reply", "pad": pad})

    async def echo_reply(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"type": "echo", "pad": "x" * message["pad"]}))


class QueueHeartbeats(SocketHeartbeat):
    """The signed-in lobby sockets: every QUEUE_HEARTBEAT_SECONDS one statement tells the queue
    their people are still there (a person whose socket closed in another process but is open
    here keeps their place)."""

    @classmethod
    def interval(cls) -> float:
        return settings.QUEUE_HEARTBEAT_SECONDS

    @classmethod
    def discard(cls, consumer: LobbyConsumer) -> bool:
        """Forget this socket; True when it was its person's last lobby socket here."""
        super().discard(consumer)
        return not any(c.user_id == consumer.user_id for c in cls.sockets)

    @classmethod
    async def beat(cls, sockets: list[LobbyConsumer]) -> None:
        user_ids = sorted({c.user_id for c in sockets})
        try:
            await run_db(matchmaking.heartbeat)(user_ids)
        except Exception:  # noqa: BLE001 - the database is down: the next beat tries again
            log.warning("queue heartbeat failed for %d people", len(user_ids))


class OnlineHeartbeats(SocketHeartbeat):
    """The signed-in lobby sockets (the lobby page's and every page's bell): one Redis round
    trip says their people are online (games/services/presence.py, "who is online"); who reads
    as new there (Redis had forgotten them) is announced to their followers again."""

    @classmethod
    async def beat(cls, sockets: list[LobbyConsumer]) -> None:
        beats = [(c.user_id, c.channel_name) for c in sockets]
        try:
            back = await run_db(presence.user_heartbeat_many)(beats)
            for user_id in back:
                await run_db(social.presence_changed)(user_id)
        except Exception:  # noqa: BLE001 - Redis is down: the next beat tries again
            log.warning("online heartbeat failed for %d sockets", len(beats))


class LobbyConsumer(SocketConsumer):
    """The lobby: the live list of public tables (nothing private, nothing hidden) for anyone,
    and "Gioca con persone" for a signed-in person: join or leave a queue, hear of the match on
    the person's own group (`lobby.user.<id>`, every lobby tab of theirs), and the answers to
    challenges (games/services/challenges.py) on the same group. Closing the last
    lobby socket leaves the queue after a grace (games/services/matchmaking.py).

    Every other page of a signed-in person opens one too for the header's bell
    (`/ws/lobby/?only=me`): that socket joins only the person's group (no public list, no queue)
    and starts with the person's `bell` frame. Either kind makes its person online for their
    friends (games/services/social.py) and answers `friends` and `bell_read`."""

    user_id: int | None = None
    where = "lobby"

    async def connect(self) -> None:
        self.user_id = None
        self.language = settings.LANGUAGE_CODE
        self.bucket = TokenBucket()
        self.abuse = AbuseScore()
        self.groups_joined: list[str] = []
        self.only_me = b"only=me" in (self.scope.get("query_string") or b"").split(b"&")
        await self.accept()
        try:
            opened = await run_db(self._open)(self.scope.get("session_key"))
        except Exception:  # noqa: BLE001 - the database or Redis is down: the page will retry
            log.warning("lobby: could not open a socket", exc_info=True)
            await self.close(code=1013)
            return
        groups = [] if self.only_me else [broadcast.LOBBY_GROUP]
        if opened["user_id"] is not None:
            self.user_id = opened["user_id"]
            self.language = opened["language"]
            groups.append(broadcast.user_group(self.user_id))
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined = groups
        if self.user_id is not None:
            try:
                await run_db(social.socket_opened)(self.user_id, self.channel_name)
            except Exception:  # noqa: BLE001 - Redis is down: the heartbeat adds the socket later
                log.warning("lobby: %s not marked online", self.user_id)
            OnlineHeartbeats.add(self)
        if self.only_me:
            if self.user_id is None:
                await self.close(code=CLOSE_UNAUTHENTICATED)
                return
            await self._send(await run_db(notification_selectors.bell_frame)(self.user_id, self.language))
            return
        await self.send(text_data=json.dumps({"type": "lobby", "tables": opened["tables"]}))
        if self.user_id is not None:
            QueueHeartbeats.add(self)
            # Read after joining the person's group: a match made meanwhile is heard either way.
            for frame in await run_db(matchmaking.socket_opened_frames)(self.scope["user"]):
                await self._send(frame)

    def _open(self, session_key: str | None) -> dict[str, Any]:
        """On the thread pool, in one call: who this is, and the public list."""
        self.scope["session"], user = session_and_user(session_key)
        self.scope["user"] = user
        signed_in = user.is_authenticated
        return {
            "user_id": user.pk if signed_in else None,
            "language": (getattr(user, "language", "") or settings.LANGUAGE_CODE) if signed_in else None,
            "tables": [] if self.only_me else lobby_selectors.lobby_list(),
        }

    async def disconnect(self, code: int) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = []
        if self.user_id is not None:
            OnlineHeartbeats.discard(self)
            try:
                await run_db(social.socket_closed)(self.user_id, self.channel_name)
                asyncio.get_running_loop().create_task(self._gone_later(self.user_id))
            except Exception:  # noqa: BLE001 - the socket's entry expires by itself
                log.warning("lobby: %s not marked offline", self.user_id)
        if self.user_id is not None and not self.only_me and QueueHeartbeats.discard(self):
            try:
                await run_db(matchmaking.socket_closed)(self.user_id)
            except Exception:  # noqa: BLE001 - the entry then leaves when it goes stale
                log.warning("lobby: the queue did not hear that %s left", self.user_id)

    @staticmethod
    async def _gone_later(user_id: int) -> None:
        """Once the closed socket's linger is over, tell the followers if the person is gone."""
        await asyncio.sleep(presence.LINGER_SECONDS + 0.1)
        try:
            await run_db(social.announce_if_gone)(user_id)
        except Exception:  # noqa: BLE001 - their "Amici" pages refresh by themselves
            log.warning("lobby: followers of %s not told", user_id)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = await self._parse(text_data)
        if frame is None:
            return
        ref = frame.get("ref") if isinstance(frame.get("ref"), (str, int)) else None
        if frame["type"] == "ping":
            await self.send(text_data='{"type":"pong"}')
            return
        handler = {"queue_join": self._on_join, "queue_leave": self._on_leave, "pair_decline": self._on_pair_decline,
                   "challenge_accept": self._on_challenge, "challenge_decline": self._on_challenge,
                   "challenge_cancel": self._on_challenge, "friends": self._on_friends,
                   "bell_read": self._on_bell_read,
                   "tournament_watch": self._on_tournament_watch}.get(frame["type"])
        if handler is None:
            await self._bad("unknown_type", ref=ref)
            return
        if not self.bucket.take():
            await self._bad("rate_limited", ref=ref)
            return
        with translation.override(self.language):  # the services' refusals in the person's language
            await self._handle(handler, frame, ref)

    def _signed_in(self) -> None:
        if self.user_id is None:
            raise ServiceError("login_required")

    async def _on_friends(self, frame: dict[str, Any], ref) -> None:
        """Whom this person follows, who of them is online and where (a `friends` frame)."""
        self._signed_in()
        await self._send(await run_db(social_selectors.friends_frame)(self.scope["user"]))

    async def _on_bell_read(self, frame: dict[str, Any], ref) -> None:
        """The bell was opened: all read (every page's bell hears the new `bell` frame)."""
        self._signed_in()
        await run_db(notifications.mark_read)(user=self.scope["user"])

    async def _on_join(self, frame: dict[str, Any], ref) -> None:
        """The service answers on the person's group: a `queue` frame (waiting), then `matched`."""
        await run_db(matchmaking.join_queue)(user=self.scope["user"], mode=frame.get("mode"),
                                             preset=frame.get("preset"),
                                             computer_after=frame.get("computer_after", False),
                                             partner=frame.get("partner"))

    async def _on_leave(self, frame: dict[str, Any], ref) -> None:
        await run_db(matchmaking.leave_queue)(user=self.scope["user"])

    async def _on_pair_decline(self, frame: dict[str, Any], ref) -> None:
        await run_db(matchmaking.decline_pair)(user=self.scope["user"], username=frame.get("from"))

    async def _on_challenge(self, frame: dict[str, Any], ref) -> None:
        """Answer an invitation (or take one's own back): both people hear it on their groups
        (`challenge`, and `matched` when accepted)."""
        service = {"challenge_accept": challenges.accept_challenge, "challenge_decline": challenges.decline_challenge,
                   "challenge_cancel": challenges.cancel_challenge}[frame["type"]]
        await run_db(service)(user=self.scope["user"], challenge_id=frame.get("id"))

    async def _on_tournament_watch(self, frame: dict[str, Any], ref) -> None:
        """A tournament page follows its event: this socket joins `tournament.<id>` (standings
        and pairings are public) and gets the event as it stands now. One event per socket."""
        tournament_id = frame.get("id")
        if not isinstance(tournament_id, int) or isinstance(tournament_id, bool):
            raise ServiceError("no_tournament")
        current = await run_db(tournament_selectors.frame_of)(tournament_id)
        if current is None:
            raise ServiceError("no_tournament")
        group = tournaments.tournament_group(tournament_id)
        for old in [g for g in self.groups_joined if g.startswith("tournament.") and g != group]:
            await self.channel_layer.group_discard(old, self.channel_name)
            self.groups_joined.remove(old)
        if group not in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.append(group)
        await self._send(current)

    async def frame_send(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["text"])

    async def _send(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=broadcast.frame_text(frame))

    async def _error(self, code: str, message: str, ref=None) -> None:
        await self._send({"type": "error", "code": code, "message": str(message), "ref": ref})

    async def _bad(self, code: str, ref=None) -> None:
        """A frame the server could not use: say so, and close only on sustained abuse."""
        if self.abuse.add():
            await self.close(code=CLOSE_ABUSE)
            return
        with translation.override(self.language):
            text = message(code)
        await self._send({"type": "error", "code": code, "message": text, "ref": ref})
