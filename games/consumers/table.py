"""The table socket, `/ws/table/<id>/` (docs/protocol.md): one socket of one person at one
table. No game state lives here: every frame comes from the services through the channel layer,
and a socket only ever joins its own seat's group (or the spectators' public group)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from burraco_site.dbthreads import run_db
from burraco_site.wsauth import session_and_user
from games.engine import IllegalMove
from games.live import frames, presence, sockets, transport
from games.selectors import tables as table_selectors
from games.services.errors import ServiceError, message
from games.services.lobby import rematch
from games.services.play import play
from games.services.table import attendance, chat, fairness, practice
from games.services.table.seating import take_seat_back

from .base import (
    CLOSE_ABUSE,
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_TOO_MANY,
    CLOSE_UNAUTHENTICATED,
    MAX_SOCKETS_PER_TABLE,
    AbuseScore,
    SocketConsumer,
    SocketHeartbeat,
    TokenBucket,
)

log = logging.getLogger(__name__)


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
                await transport.deliver_async([(transport.all_group(table_id), frame)])
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
    tour_open = False  # this page asked to hold a practice table's clock (its tour is open)
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
        self._see(transport.seen_of(opened["presence"]))
        await transport.deliver_async([(transport.all_group(self.table_id), opened["presence"])])
        Heartbeats.add(self)

    def _open(self, session_key: str | None) -> dict[str, Any]:
        """On the thread pool, in one call: who this is, and the socket's place at the table."""
        self.scope["session"], user = session_and_user(session_key)
        self.scope["user"] = user
        if not user.is_authenticated:
            return {"refused": "unauthenticated"}
        return sockets.open_socket(self.table_id, user, self.scope["session"], self.channel_name,
                                           MAX_SOCKETS_PER_TABLE)

    async def _join_groups(self) -> None:
        await self._leave_groups()
        groups = [transport.all_group(self.table_id)]
        groups.append(
            transport.seat_group(self.table_id, self.position) if self.position is not None
            else transport.public_group(self.table_id)
        )
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined = groups

    async def _join(self, position: int | None) -> None:
        """This person's seat changed (from another tab or the lobby): move the socket."""
        old = self.position
        self.position = position
        await self._join_groups()
        await run_db(attendance.socket_closed)(self.table_id, old, self.user_id, self.channel_name)
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
        await self.channel_layer.group_send(transport.seat_group(self.table_id, self.position),
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
        await transport.deliver_async([(transport.all_group(self.table_id), frame)])

    async def disconnect(self, code: int) -> None:
        Heartbeats.discard(self)
        await self._leave_groups()
        if self.tour_open:
            # Closed with the tour open: the practice table's clock runs again now, not at the hold's end.
            try:
                await run_db(practice.page_gone)(table_id=self.table_id, user=self.scope["user"],
                                                 socket_id=self.channel_name)
            except Exception:  # noqa: BLE001 - the clock then runs again when the player comes back
                log.warning("table %s: the tour's hold not released on disconnect", self.table_id, exc_info=True)
        if self.counted:
            try:
                last = await run_db(attendance.socket_closed)(self.table_id, self.position, self.user_id,
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
            self.game_id = await run_db(sockets.game_id_of)(self.table_id)
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
            "tour": self._on_tour,
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
        missed = await run_db(table_selectors.resync_frames)(self.table_id, self.position, last)
        for out in missed:
            await self._send(out)
        if self.finished:  # a rematch frame missed while reconnecting is not sent again: say it now
            offer = await run_db(rematch.offer_frame)(self.table_id)
            if offer is not None:
                await self._send(offer)
        if "client_seed" in frame:  # the player's entropy for the next deal (docs/fairness.md)
            await run_db(fairness.set_client_seed)(table_id=self.table_id, position=self.position,
                                                   user=self.scope["user"], text=frame["client_seed"])

    async def _on_ping(self, frame: dict[str, Any], ref) -> None:
        """Keep-alive; the answer carries the game's version, so a page that missed a frame
        learns it at the next ping without waiting for the next move."""
        version = await run_db(sockets.current_version)(self.table_id) if self.game_id else None
        await self._send(frames.pong(version))

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
        messages = chat.say(self.table_id, self.position, self.scope["user"].get_username(), frame.get("phrase"))
        await transport.deliver_async(messages)

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

    async def _on_tour(self, frame: dict[str, Any], ref) -> None:
        """The tour opened or closed: at a practice table the turn clock stops while it is open."""
        if not isinstance(frame.get("open"), bool):
            await self._bad("bad_frame", ref=ref)
            return
        await run_db(practice.hold_clock)(table_id=self.table_id, user=self.scope["user"], hold=frame["open"],
                                          socket_id=self.channel_name)
        self.tour_open = frame["open"]

    async def _on_abandon(self, frame: dict[str, Any], ref) -> None:
        """Give the match up; the service checks the seat (the `match_over` frame says the rest)."""
        await run_db(play.abandon_match)(table_id=self.table_id, user=self.scope["user"])

    # ------------------------------------------------------------------ sending

    async def _deliver_own(self, messages: transport.Messages) -> None:
        """The frames of a change this socket made. Its own seat's frames go straight to it, not
        round the channel layer (a Redis publish and a read back: a third of an action's cost in
        the layer), when nothing can come between: it is its seat's only tab, and it has the
        version just before the change, so no earlier frame is still on its way. Every other
        recipient's frames, and these too otherwise, go through the layer as always."""
        own = transport.seat_group(self.table_id, self.position) if self.position is not None else None
        mine = [frame for group, frame in messages if group == own]
        version = mine[0].get("version") if mine else None
        if self.alone and isinstance(version, int) and self.version == version - 1:
            for frame in mine:
                await self._send(frame)
            messages = [(group, frame) for group, frame in messages if group != own]
        await transport.deliver_async(messages)

    async def _send(self, frame: dict[str, Any]) -> None:
        version = frame.get("version")
        if isinstance(version, int):
            self.version = max(self.version or 0, version)
        await self.send(text_data=transport.frame_text(frame))

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
            version = await run_db(sockets.current_version)(self.table_id)
        await self._send(frames.error(code, message, ref, version))

    async def _bad(self, code: str, ref=None) -> None:
        """A frame the server could not use: say so, and close only on sustained abuse."""
        if self.abuse.add():
            await self.close(code=CLOSE_ABUSE)
            return
        with translation.override(getattr(self, "language", settings.LANGUAGE_CODE)):
            text = message(code)
        await self.send(text_data=json.dumps(frames.error(code, text, ref, self.version)))
