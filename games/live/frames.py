"""Every server→client frame of the table's socket, built for one recipient (docs/protocol.md).

The hidden-information review reads this file: a frame that carries a view is built for one
recipient only, `engine_view(game, seat, ...)` for a seated player and the public view for
spectators (`position` None), and `per_recipient` is the one place such frames are addressed:
each seat's group gets the frames built for that seat, the spectators' group the frames built for
nobody. Frames with nothing hidden in them (presence, seating, clock, chat, the lobby's list) go
to the table's `all` group or to the lobby.

These are pure builders: the callers (selectors for what they read, services for what they
change) hand in the rows, the engine game and the table's summary; nothing here reads the
database. Like boardgame.io's `playerView`, one function filters every payload.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from games.engine import Game as EngineGame

from . import clock
from .presence import Sockets
from .transport import Messages, public_group, seat_group

Frame = dict[str, Any]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def per_recipient(table_id: int, players: int, frames_for: Callable[[int | None], list[Frame]]) -> Messages:
    """The one place frames are addressed: each seat's group gets the frames built for that seat,
    the spectators' group the frames built for nobody (`frames_for(None)`: the public view)."""
    messages: Messages = []
    for position in [*range(players), None]:
        group = seat_group(table_id, position) if position is not None else public_group(table_id)
        messages.extend((group, frame) for frame in frames_for(position))
    return messages


# ----------------------------------------------------------------------------- views


def engine_view(engine_game: EngineGame, position: int | None, version: int) -> Frame:
    """The engine's view for one recipient, with the game version in place of the engine's
    per-hand action count (so a frame carries one version number, the game's)."""
    view = engine_game.view(position) if position is not None else engine_game.public_view()
    view["version"] = version
    return view


def public_action(action: dict[str, Any]) -> dict[str, Any]:
    """The form of an action that everybody may see. The engine's canonical actions name only
    face-up cards (a stock draw is just {"type": "draw"}); this keeps it that way if that ever
    changes by dropping anything but the public fields."""
    allowed = {"type", "cards", "meld", "card"}
    out = {k: v for k, v in action.items() if k in allowed}
    if out.get("type") in ("draw", "take_discards"):
        out = {"type": out["type"]}
    return out


# ----------------------------------------------------------------------------- the play


def snapshot(game, table_summary: dict[str, Any], position: int | None, presence: list[dict[str, Any]],
             engine_game: EngineGame | None = None, *, computer_for: list[str] | None = None) -> Frame:
    """Everything one socket needs to draw the table from scratch (`game`: the `Game` row, or
    None before the first deal). A finished match's also names `computer_for` (see `hand_over`)."""
    frame: Frame = {
        "type": "snapshot",
        "version": None,
        "table": table_summary,
        "seat": position,
        "view": None,
        "deadline": None,
        "server_time": clock.now().isoformat(),
        "hand_number": None,
        "totals": None,
        "finished": False,
        "result": None,
        "presence": presence,
    }
    if game is None:
        return frame
    engine_game = engine_game or EngineGame.from_dict(game.state)
    frame.update(
        version=game.version,
        view=engine_view(engine_game, position, game.version),
        deadline=_iso(game.turn_deadline),
        hand_number=game.hand_number,
        totals=list(game.totals),
        finished=game.finished,
        result=game.result or None,
    )
    if computer_for is not None:
        frame["computer_for"] = list(computer_for)
    return frame


def event(*, version: int, hand_number: int, seat: int, actor: str, action: dict[str, Any],
          played: EngineGame, position: int | None, deadline: datetime | None) -> Frame:
    """One accepted action as one recipient sees it (`position` None: a spectator)."""
    over = played.hand_over
    return {
        "type": "event",
        "version": version,
        "hand_number": hand_number,
        "seat": seat,
        "actor": actor,
        "action": public_action(action),
        "view": engine_view(played, position, version),
        "to_move": None if over else played.to_move,
        "deadline": None if over or deadline is None else deadline.isoformat(),
        "server_time": clock.now().isoformat(),
    }


def event_messages(table_id: int, players: int, *, game_version: int, hand_number: int, seat: int, actor: str,
                   action: dict[str, Any], played: EngineGame, deadline: datetime | None,
                   more: Callable[[int | None], list[Frame]] | None = None, spectators: bool = True) -> Messages:
    """Per recipient: the event, then whatever `more` builds for that recipient."""
    def frames(position: int | None) -> list[Frame]:
        if position is None and not spectators:
            return []  # nobody watches: no public view to build or publish
        first = event(version=game_version, hand_number=hand_number, seat=seat, actor=actor, action=action,
                      played=played, position=position, deadline=deadline)
        return [first, *(more(position) if more else [])]

    return per_recipient(table_id, players, frames)


def hand_over(version: int, finished_hand: dict[str, Any], computer_for: list[str] | None = None) -> Frame:
    """A hand's scoring (public: every hand is face up once counted). The last hand of a match
    also names `computer_for`: the people who never sat down, whose every move the timer and the
    computer played (public: the finished table's page says it to anyone)."""
    frame = {"type": "hand_over", "version": version, **finished_hand}
    if computer_for is not None:
        frame["computer_for"] = list(computer_for)
    return frame


def change_messages(table_id: int, players: int, *, game_version: int, hand_number: int, seat: int, actor: str,
                    action: dict[str, Any], played: EngineGame, deadline: datetime | None,
                    finished_hand: dict[str, Any] | None,
                    snapshot_for: Callable[[int | None], Frame] | None, spectators: bool = True,
                    computer_for: list[str] | None = None) -> Messages:
    """Per recipient, in order: the event (with that recipient's view of the position the action
    produced), then at the end of a hand the scoring (with `computer_for` at the end of the match)
    and the next hand's snapshot for that recipient (`snapshot_for(position)`)."""
    more = None
    if finished_hand is not None and snapshot_for is not None:
        def more(position: int | None) -> list[Frame]:
            return [hand_over(game_version, finished_hand, computer_for), snapshot_for(position)]

    return event_messages(table_id, players, game_version=game_version, hand_number=hand_number, seat=seat,
                          actor=actor, action=action, played=played, deadline=deadline, more=more,
                          spectators=spectators)


def match_over_abandoned(game, position: int, username: str, computer_for: list[str] | None = None) -> Frame:
    """The match ended because this person gave it up (public); `computer_for` as in `hand_over`."""
    return {
        "type": "match_over",
        "version": game.version,
        "hand_number": game.hand_number,
        "reason": "abandoned",
        "abandoned_by": username,
        "abandoned_seat": position,
        "totals": list(game.totals),
        "winner_side": game.winner_side,
        "computer_for": list(computer_for or []),
    }


def abandon_messages(table_id: int, players: int, over: Frame, snapshot_for: Callable[[int | None], Frame]) -> Messages:
    """Per recipient: the `match_over` frame, then the final snapshot (finished, with the result)."""
    return per_recipient(table_id, players, lambda position: [dict(over), snapshot_for(position)])


def clock_frame(version: int, deadline: datetime | None, server_time: str, reason: str) -> Frame:
    """The turn's deadline moved (public); None: the clock stopped (a held practice table)."""
    return {"type": "clock", "version": version, "deadline": _iso(deadline), "server_time": server_time,
            "reason": reason}


# ----------------------------------------------------------------------------- who is there


def presence_rows(seats: Iterable[tuple[int, bool, bool]], online: set[int]) -> list[dict[str, Any]]:
    """(position, computer, covered) per seat, in seat order, with who is online."""
    return [
        {"position": position, "online": computer or position in online, "covered_by_computer": covered,
         "computer": computer}
        for position, computer, covered in sorted(seats)
    ]


def presence(seats: list[tuple[int, int | None, bool, bool]], sockets: Sockets) -> Frame:
    """Who is online at each seat, and how many watch (no names: spectators are anonymous);
    `seats`: (position, user id, computer, covered) each."""
    return {"type": "presence", "seats": presence_rows(((p, b, c) for p, _u, b, c in seats), sockets.online),
            "watchers": sockets.watchers}


def table(summary: dict[str, Any]) -> Frame:
    """The seating changed (someone sat, left, a computer joined, the game started or ended)."""
    return {"type": "table", "table": summary}


def chat(seat: int, username: str, phrase: str, text: str) -> Frame:
    """A ready-made phrase said at the table (RULES §13: no free text)."""
    return {"type": "chat", "seat": seat, "username": username, "phrase": phrase, "text": text}


def rematch(table_id: int, accepted: list[int], needed: list[int], table_url: str | None, ended: str | None,
            ended_by: int | None) -> Frame:
    """Where the offer of a rematch stands (public: who accepted, who is still asked)."""
    return {"type": "rematch", "table": table_id, "accepted": accepted, "needed": needed, "table_url": table_url,
            "ended": ended, "ended_by": ended_by}


def pong(version: int | None) -> Frame:
    return {"type": "pong", "version": version}


def lobby_pong() -> Frame:
    """The lobby socket's answer to `ping` (no game, so no version)."""
    return {"type": "pong"}


def error(code: str, message: str, ref=None, version: int | None = None, *, with_version: bool = True) -> Frame:
    """A refusal, to the one socket that sent the frame (the lobby's carries no version)."""
    frame: Frame = {"type": "error", "code": code, "message": message, "ref": ref}
    if with_version:
        frame["version"] = version
    return frame


# ----------------------------------------------------------------------------- the lobby


def lobby(tables: list[dict[str, Any]]) -> Frame:
    """The lobby's list of open tables."""
    return {"type": "lobby", "tables": tables}


def friends_changed() -> Frame:
    """Someone's friends or their seating changed: the "Amici" page looks again."""
    return {"type": "friends_changed"}


def friends(rows: list[dict[str, Any]]) -> Frame:
    """The lobby socket's `friends` frame: the rows of the "Amici" list (docs/protocol.md)."""
    return {"type": "friends", "friends": rows}


def bell(unread: int, items: list[dict[str, Any]]) -> Frame:
    """One person's notifications: how many unread, the latest ones (texts already in their language)."""
    return {"type": "bell", "unread": unread, "items": items}


def challenge(challenge_id: int, status: str, sender: str, invitee: str, preset: str, preset_label: str,
              expires_in: int, table_id: int | None) -> Frame:
    """Sent to both people at every step of a challenge (pending, declined, expired, cancelled; an
    accepted one is followed by `matched`)."""
    return {
        "type": "challenge",
        "id": challenge_id,
        "status": status,
        "from": sender,
        "to": invitee,
        "preset": preset,
        "preset_label": preset_label,
        "expires_in": expires_in,
        "table": table_id,
    }


def queue_waiting(*, mode: str, preset: str, waited: int, window: int | None, computer_after: bool,
                  computer_in: int | None, partner: str | None, partner_ready: bool | None) -> Frame:
    """Where a waiting person stands in the queue (their own entry only)."""
    return {
        "type": "queue",
        "status": "waiting",
        "mode": mode,
        "preset": preset,
        "waited": waited,
        "window": window,
        "computer_after": computer_after,
        "computer_in": computer_in,
        "partner": partner,
        "partner_ready": partner_ready,
    }


def queue_idle(reason: str) -> Frame:
    """Not (or no longer) in any queue, and why."""
    return {"type": "queue", "status": "idle", "reason": reason}


def pair_invite(status: str, sender: str, partner: str, mode: str, preset: str, preset_label: str) -> Frame:
    """To the player named as partner: where the invitation to queue as a pair stands."""
    return {
        "type": "pair_invite",
        "status": status,
        "from": sender,
        "to": partner,
        "mode": mode,
        "preset": preset,
        "preset_label": preset_label,
    }


def matched(table_id: int, players: int, preset: str, rated: bool, seats: list[dict[str, Any]]) -> Frame:
    """A table was made for this person: the lobby page goes to `url` at once."""
    return {
        "type": "matched",
        "table": table_id,
        "url": f"/tavolo/{table_id}/",  # as the lobby's list has it (games/urls.py: "table")
        "players": players,
        "preset": preset,
        "rated": rated,
        "computer": any(s["bot_level"] for s in seats),
        "seats": seats,
    }


# ----------------------------------------------------------------------------- tournaments


def tournament(summary: dict[str, Any], standings: list[Any], rounds_played: list[Any],
               entries: list[dict[str, Any]]) -> Frame:
    """What a tournament page receives live (group `tournament.<id>`): nothing hidden in it."""
    return {"type": "tournament", **summary, "standings": standings, "rounds_played": rounds_played,
            "entries": entries}
