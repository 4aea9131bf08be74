"""WebSocket consumers: thin edges that authenticate, parse, rate-limit and hand to the services.

`TableConsumer` serves `/ws/table/<id>/` (see docs/protocol.md); `LobbyConsumer` serves
`/ws/lobby/`. No game state lives here: every frame comes from the services through the channel
layer, and a socket only ever joins its own seat's group (or the spectators' public group).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from .engine import IllegalMove
from .models import Game
from .selectors import lobby as lobby_selectors
from .selectors import tables as table_selectors
from .services import broadcast, presence, timeouts
from .services.play import abandon_match, submit_action
from .services.tables import TableError, take_seat_back

MAX_FRAME_BYTES = 4096
BUCKET_CAPACITY = 5  # frames in a burst
BUCKET_RATE = 5.0  # frames per second, sustained
MAX_BAD_FRAMES = 50  # then the socket is closed

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_ABUSE = 4429


def server_messages() -> dict[str, str]:
    """The server's own error codes and their Italian messages (docs/protocol.md)."""
    return {
        "bad_json": _("Messaggio non valido: non è JSON."),
        "bad_frame": _("Messaggio non valido."),
        "too_large": _("Messaggio troppo grande."),
        "unknown_type": _("Tipo di messaggio sconosciuto."),
        "rate_limited": _("Troppe azioni in poco tempo: rallenta."),
        "not_seated": _("Non sei seduto a questo tavolo."),
        "not_playing": _("La partita non è in corso."),
        "bad_phrase": _("In chat si possono usare solo le frasi proposte."),
    }


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


def _load_access(table_id: int, user, session) -> dict[str, Any] | None:
    table = table_selectors.get_table(table_id)
    if table is None:
        return None
    invited = table_selectors.invited_table_ids(session)
    return {
        "allowed": table_selectors.can_watch(table, user, invited),
        "position": table_selectors.user_position(table, user),
        "players": table.players,
    }


def _presence_frame(table_id: int) -> dict[str, Any]:
    return table_selectors.presence_frame(table_id)


def _current_version(table_id: int) -> tuple[int | None, int | None]:
    game = Game.objects.filter(table_id=table_id).only("id", "version").first()
    return (game.pk, game.version) if game else (None, None)


class TableConsumer(AsyncWebsocketConsumer):
    """One socket of one person at one table: a seated player or a spectator."""

    table_id: int
    position: int | None = None
    groups_joined: list[str]

    async def connect(self) -> None:
        self.groups_joined = []
        self.heartbeat_task: asyncio.Task | None = None
        self.bucket = TokenBucket()
        self.bad_frames = 0
        self.version: int | None = None
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        # Accept first, then close with an application code: a refused handshake reaches the
        # browser only as 1006, a close code after accept tells the page why.
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        access = await database_sync_to_async(_load_access)(self.table_id, user, self.scope.get("session"))
        if access is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if not access["allowed"]:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.players = access["players"]
        # Refusals this socket sends speak the player's language.
        self.language = getattr(user, "language", "") or settings.LANGUAGE_CODE
        await self._join(access["position"])

    async def _join(self, position: int | None) -> None:
        """Join the groups of this socket's place at the table (leaving the old ones)."""
        await self._leave_groups()
        old = self.position
        self.position = position
        groups = [broadcast.all_group(self.table_id)]
        groups.append(
            broadcast.seat_group(self.table_id, position) if position is not None
            else broadcast.public_group(self.table_id)
        )
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined = groups
        if old is not None and old != position:
            await sync_to_async(presence.disconnected)(self.table_id, old)
        if position is not None and old != position:
            await sync_to_async(presence.connected)(self.table_id, position)
            if self.heartbeat_task is None:
                self.heartbeat_task = asyncio.create_task(self._heartbeat())
        if old != position:
            await self._announce_presence()

    async def _leave_groups(self) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = []

    async def _heartbeat(self) -> None:
        try:
            while True:
                await asyncio.sleep(presence.HEARTBEAT_SECONDS)
                if self.position is not None:
                    await sync_to_async(presence.heartbeat)(self.table_id, self.position)
        except asyncio.CancelledError:
            pass

    async def _announce_presence(self) -> None:
        frame = await database_sync_to_async(_presence_frame)(self.table_id)
        await self.channel_layer.group_send(
            broadcast.all_group(self.table_id), {"type": broadcast.MESSAGE_TYPE, "frame": frame}
        )

    async def disconnect(self, code: int) -> None:
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        await self._leave_groups()
        if self.position is not None:
            await sync_to_async(presence.disconnected)(self.table_id, self.position)
            self.position = None
            await self._announce_presence()

    # ------------------------------------------------------------------ from the channel layer

    async def frame_send(self, message: dict[str, Any]) -> None:
        frame = message["frame"]
        view = frame.get("view")
        if isinstance(view, dict) and view.get("seat", self.position) != self.position:
            return  # never forward another seat's view, whatever group it came through
        if frame.get("type") == "table":
            await self._send(frame)
            await self._follow_seating(frame["table"])
            return
        await self._send(frame)

    async def _follow_seating(self, table: dict[str, Any]) -> None:
        """Someone sat or stood up: if it was this person (from another tab or the lobby), move
        this socket to its new group and send it a fresh snapshot."""
        username = self.scope["user"].get_username()
        position = next((s["position"] for s in table["seats"] if s["username"] == username), None)
        if position != self.position:
            await self._join(position)
            await self._send_snapshot()

    # ------------------------------------------------------------------ from the client

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is None:
            await self._bad("bad_frame")
            return
        if len(text_data) > MAX_FRAME_BYTES or len(text_data.encode()) > MAX_FRAME_BYTES:
            await self._bad("too_large")
            return
        try:
            frame = json.loads(text_data)
        except ValueError:
            await self._bad("bad_json")
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self._bad("bad_frame")
            return
        kind = frame["type"]
        ref = frame.get("ref") if isinstance(frame.get("ref"), (str, int)) else None
        if kind == "ping":
            await self._send({"type": "pong"})
            return
        if not self.bucket.take():
            await self._bad("rate_limited", ref=ref)
            return
        with translation.override(getattr(self, "language", settings.LANGUAGE_CODE)):
            await self._dispatch(kind, frame, ref)

    async def _dispatch(self, kind: str, frame: dict[str, Any], ref) -> None:
        handler = {
            "hello": self._on_hello,
            "action": self._on_action,
            "chat": self._on_chat,
            "back": self._on_back,
            "abandon": self._on_abandon,
        }.get(kind)
        if handler is None:
            await self._bad("unknown_type", ref=ref)
            return
        await handler(frame, ref)

    async def _on_hello(self, frame: dict[str, Any], ref) -> None:
        await self._send_snapshot()

    async def _on_action(self, frame: dict[str, Any], ref) -> None:
        action = frame.get("action")
        expected = frame.get("version")
        if not isinstance(action, dict) or not (
            expected is None or (isinstance(expected, int) and not isinstance(expected, bool))
        ):
            await self._bad("bad_frame", ref=ref)
            return
        if self.position is None:
            await self._error("not_seated", server_messages()["not_seated"], ref)
            return
        game_id, _version = await database_sync_to_async(_current_version)(self.table_id)
        if game_id is None:
            await self._error("not_playing", server_messages()["not_playing"], ref)
            return
        # A turn whose time ran out (its timer task lost) is completed before anything else.
        await database_sync_to_async(timeouts.enforce_deadline)(game_id)
        try:
            await database_sync_to_async(submit_action)(
                game_id=game_id, seat=self.position, action=action, actor="person",
                expected_version=expected, user=self.scope["user"],
            )
        except IllegalMove as exc:
            await self._error(exc.code, exc.message, ref)
            if exc.code == "stale_version":
                await self._send_snapshot()

    async def _on_chat(self, frame: dict[str, Any], ref) -> None:
        phrase = frame.get("phrase")
        with translation.override(settings.LANGUAGE_CODE):  # one text for all; pages may show their own
            text = table_selectors.phrase_text(phrase) if isinstance(phrase, str) else None
        if text is None:
            await self._error("bad_phrase", server_messages()["bad_phrase"], ref)
            return
        if self.position is None:
            await self._error("not_seated", server_messages()["not_seated"], ref)
            return
        out = {
            "type": "chat",
            "seat": self.position,
            "username": self.scope["user"].get_username(),
            "phrase": phrase,
            "text": text,
        }
        await self.channel_layer.group_send(
            broadcast.all_group(self.table_id), {"type": broadcast.MESSAGE_TYPE, "frame": out}
        )

    async def _on_back(self, frame: dict[str, Any], ref) -> None:
        try:
            await database_sync_to_async(take_seat_back)(table_id=self.table_id, user=self.scope["user"])
        except TableError as exc:
            await self._error(exc.code, exc.message, ref)

    async def _on_abandon(self, frame: dict[str, Any], ref) -> None:
        """Give the match up; the service checks the seat (the `match_over` frame says the rest)."""
        try:
            await database_sync_to_async(abandon_match)(table_id=self.table_id, user=self.scope["user"])
        except IllegalMove as exc:
            await self._error(exc.code, exc.message, ref)

    # ------------------------------------------------------------------ sending

    async def _send(self, frame: dict[str, Any]) -> None:
        version = frame.get("version")
        if isinstance(version, int):
            self.version = max(self.version or 0, version)
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def _send_snapshot(self) -> None:
        frame = await database_sync_to_async(table_selectors.table_snapshot)(self.table_id, self.position)
        if frame is not None:
            await self._send(frame)

    async def _error(self, code: str, message: str, ref=None) -> None:
        _game, version = await database_sync_to_async(_current_version)(self.table_id)
        # Engine and service texts are Italian at the source; show them in the player's language.
        with translation.override(getattr(self, "language", settings.LANGUAGE_CODE)):
            message = _(str(message))
        await self._send({"type": "error", "code": code, "message": message, "ref": ref, "version": version})

    async def _bad(self, code: str, ref=None) -> None:
        """A frame the server could not use: say so, and close only on sustained abuse."""
        self.bad_frames += 1
        if self.bad_frames >= MAX_BAD_FRAMES:
            await self.close(code=CLOSE_ABUSE)
            return
        with translation.override(getattr(self, "language", settings.LANGUAGE_CODE)):
            message = server_messages()[code]
        await self.send(text_data=json.dumps(
            {"type": "error", "code": code, "message": message, "ref": ref, "version": self.version}
        ))


class EchoConsumer(AsyncWebsocketConsumer):
    """The load benchmark's baseline (routed only with BURRACO_BENCH_ECHO): each frame goes out
    through one group_send on the channel layer and comes back padded to the asked size, so the
    cost of Daphne, the layer and a socket send can be measured without any game work."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.group = "echo." + self.channel_name.replace("!", ".")[-60:]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = json.loads(text_data or "{}")
        pad = min(int(frame.get("pad", 0)), 1 << 16)
        await self.channel_layer.group_send(self.group, {"type": "echo.reply", "pad": pad})

    async def echo_reply(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"type": "echo", "pad": "x" * message["pad"]}))


class LobbyConsumer(AsyncWebsocketConsumer):
    """The lobby's live list of public tables (nothing private, nothing hidden)."""

    async def connect(self) -> None:
        await self.accept()
        await self.channel_layer.group_add(broadcast.LOBBY_GROUP, self.channel_name)
        tables = await database_sync_to_async(lobby_selectors.lobby_list)()
        await self.send(text_data=json.dumps({"type": "lobby", "tables": tables}))

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(broadcast.LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data and len(text_data) < 200 and '"ping"' in text_data:
            await self.send(text_data='{"type":"pong"}')

    async def frame_send(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(message["frame"]))
