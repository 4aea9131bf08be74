"""The lobby socket, `/ws/lobby/`: the public list of tables, "Gioca con persone", challenges,
friends, the bell and the tournaments' pages. A lobby socket joins only its own person's group."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from django.conf import settings
from django.utils import translation

from burraco_site.dbthreads import run_db
from burraco_site.wsauth import session_and_user
from games.live import frames, presence, transport
from games.selectors import lobby as lobby_selectors
from games.selectors import notifications as notification_selectors
from games.selectors import social as social_selectors
from games.selectors import tournaments as tournament_selectors
from games.services import notifications, tournaments
from games.services.errors import ServiceError, message
from games.services.lobby import challenges, matchmaking, social

from .base import (
    CLOSE_ABUSE,
    CLOSE_UNAUTHENTICATED,
    AbuseScore,
    SocketConsumer,
    SocketHeartbeat,
    TokenBucket,
)

log = logging.getLogger(__name__)


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
    trip says their people are online (games/live/presence.py, "who is online"); who reads
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
    challenges (games/services/lobby/challenges.py) on the same group. Closing the last
    lobby socket leaves the queue after a grace (games/services/lobby/matchmaking.py).

    Every other page of a signed-in person opens one too for the header's bell
    (`/ws/lobby/?only=me`): that socket joins only the person's group (no public list, no queue)
    and starts with the person's `bell` frame. Either kind makes its person online for their
    friends (games/services/lobby/social.py) and answers `friends` and `bell_read`."""

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
        groups = [] if self.only_me else [transport.LOBBY_GROUP]
        if opened["user_id"] is not None:
            self.user_id = opened["user_id"]
            self.language = opened["language"]
            groups.append(transport.user_group(self.user_id))
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
        await self.send(text_data=json.dumps(frames.lobby(opened["tables"])))
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
            await self.send(text_data=json.dumps(frames.lobby_pong(), separators=(",", ":")))
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
        await self.send(text_data=transport.frame_text(frame))

    async def _error(self, code: str, message: str, ref=None) -> None:
        await self._send(frames.error(code, str(message), ref, with_version=False))

    async def _bad(self, code: str, ref=None) -> None:
        """A frame the server could not use: say so, and close only on sustained abuse."""
        if self.abuse.add():
            await self.close(code=CLOSE_ABUSE)
            return
        with translation.override(self.language):
            text = message(code)
        await self._send(frames.error(code, text, ref, with_version=False))
