"""Live play: the one door every action goes through (people, turn timers, computer players).

`submit_action` runs one transaction per action: lock the game row, check the version, let the
engine apply the action, append it to the move log, move the match on (next hand or the end),
set the clock, bump the version, and after the commit send each seat its own frame. The row lock
plus the version make one writer per game across every server process and worker.

`abandon_match` is the other way a match can end: a seated person gives it up, under the same
lock, and the match finishes through the same `_finish_match` as one played to the end.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..engine import Game as EngineGame
from ..engine import IllegalMove
from ..models import Game, Hand, Move, Seat, Table
from . import broadcast, clock, presence, ratings, turns
from .tables import deadline_for

ACTORS = {c.value for c in Move.Actor}

__all__ = ["IllegalMove", "abandon_match", "submit_action"]


def _refuse(code: str, message: str) -> IllegalMove:
    return IllegalMove(code, message)


def public_action(action: dict[str, Any]) -> dict[str, Any]:
    """The form of an action that everybody may see. The engine's canonical actions name only
    face-up cards (a stock draw is just {"type": "draw"}); this keeps it that way if that ever
    changes by dropping anything but the public fields."""
    allowed = {"type", "cards", "meld", "card"}
    out = {k: v for k, v in action.items() if k in allowed}
    if out.get("type") in ("draw", "take_discards"):
        out = {"type": out["type"]}
    return out


def submit_action(*, game_id: int, seat: int, action: dict, actor: str = "person",
                  expected_version: int | None = None, user=None) -> int:
    """Apply `action` for `seat` and return the game's new version.

    Raises `IllegalMove` (engine codes, or the service's: not_playing, stale_version,
    not_your_seat, bad_actor) and changes nothing when the action is refused. For actor
    "person", `user` must be the person sitting in `seat`.
    """
    if actor not in ACTORS:
        raise _refuse("bad_actor", _("Chi gioca questa mossa?"))
    if not isinstance(action, dict):
        raise IllegalMove("bad_action")
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_id)
        except Game.DoesNotExist:
            raise _refuse("not_playing", _("La partita non è in corso.")) from None
        if game.finished:
            raise _refuse("not_playing", _("La partita non è in corso."))
        if expected_version is not None and expected_version != game.version:
            raise _refuse("stale_version", _("La partita è andata avanti: ecco la situazione aggiornata."))
        table = Table.objects.get(pk=game.table_id)
        seat_row = Seat.objects.filter(table_id=table.pk, position=seat).first()
        if seat_row is None:
            raise IllegalMove("bad_action")
        if actor == Move.Actor.PERSON:
            if user is None or not user.is_authenticated or seat_row.user_id != user.pk:
                raise _refuse("not_your_seat", _("Puoi giocare solo per il tuo posto."))

        engine_game = EngineGame.from_dict(game.state)
        before_to_move, before_phase = engine_game.to_move, engine_game.phase
        engine_game.apply(seat, action)  # IllegalMove leaves everything untouched
        record = engine_game.actions[-1]
        version = game.version + 1

        Move.objects.create(
            game=game, seq=version, hand_number=game.hand_number, seat=seat, action=record, actor=actor
        )
        cover_ended = _count_move(seat_row, actor)

        finished_hand: dict[str, Any] | None = None
        next_game: EngineGame | None = None
        if engine_game.hand_over:
            finished_hand, next_game = _close_hand(game, table, engine_game)
        live = next_game or engine_game
        game.state = live.to_dict()
        game.version = version
        if game.finished:
            game.to_move = None
            game.turn_deadline = None
        else:
            game.to_move = live.to_move
            same_turn = next_game is None and live.to_move == before_to_move and before_phase != "draw"
            game.turn_deadline = deadline_for(live, table, previous=game.turn_deadline, same_turn=same_turn)
        game.save()

        messages = _change_messages(
            game, table, seat=seat, actor=actor, action=record, played=engine_game,
            finished_hand=finished_hand, next_game=next_game,
        )
        game_id, finished = game.pk, game.finished

        def after_commit() -> None:
            broadcast.deliver(messages)
            if cover_ended:
                presence.announce(table.pk)
            if finished:
                from .tables import _announce_now

                _announce_now(table.pk)
            turns.after_change(game_id, version)

        transaction.on_commit(after_commit)
    return version


def _count_move(seat_row: Seat, actor: str) -> bool:
    """Update the seat's counters; True when this move ended the computer's cover of the seat."""
    fields: list[str] = []
    cover_ended = False
    if actor == Move.Actor.PERSON:
        seat_row.own_moves += 1
        fields.append("own_moves")
        if seat_row.consecutive_timeouts or seat_row.covered_by_computer:
            # The person is playing: the computer's cover ends.
            seat_row.consecutive_timeouts = 0
            seat_row.covered_by_computer = False
            fields += ["consecutive_timeouts", "covered_by_computer"]
            cover_ended = True
    elif seat_row.user_id is not None:
        seat_row.covered_moves += 1
        fields.append("covered_moves")
    if fields:
        seat_row.save(update_fields=fields)
    return cover_ended


def _close_hand(game: Game, table: Table, engine_game: EngineGame) -> tuple[dict[str, Any], EngineGame | None]:
    """Score the hand just over; deal the next one or finish the match."""
    score = engine_game.score()
    match = engine_game.match
    now = timezone.now()
    Hand.objects.filter(game=game, number=game.hand_number).update(score=score, finished_at=now)
    game.totals = list(match.totals)
    finished_hand = {
        "hand_number": game.hand_number,
        "score": score,
        "totals": list(match.totals),
        "end_reason": engine_game.end_reason,
        "closed_by": engine_game.closed_by,
        "match_over": match.finished,
        "winner_side": match.winner if match.finished else None,
    }
    if match.finished:
        _finish_match(game, table, winner_side=match.winner, now=now, result={
            "totals": list(match.totals),
            "winner_side": match.winner,
            "hands": game.hand_number,
            "target": match.target,
            "end_reason": engine_game.end_reason,
        })
        return finished_hand, None
    next_game = engine_game.next_hand(secrets.SystemRandom())
    game.hand_number = next_game.hand_number + 1
    Hand.objects.create(game=game, number=game.hand_number, deal=next_game.deal)
    return finished_hand, next_game


def _finish_match(game: Game, table: Table, *, winner_side: int | None, result: dict[str, Any], now) -> None:
    """The one way a match ends (played out or abandoned): the game and its table are finished
    and the ratings move, inside the caller's transaction with the game row locked."""
    game.finished = True
    game.winner_side = winner_side
    game.finished_at = now
    game.result = result
    game.to_move = None
    game.turn_deadline = None
    table.status = Table.Status.FINISHED
    table.finished_at = now
    table.save(update_fields=["status", "finished_at"])
    game.save()  # ratings read the finished game
    ratings.record_match_result(game)


def abandon_match(*, table_id: int, user) -> int:
    """`user`, seated at the table, abandons the match in play; return the game's new version.

    The match ends at once and the abandoning player's side loses it (with four players, both
    partners); on a rated table that is a rated loss (`ratings.record_match_result`). The hand in
    play is left unscored: `Game.result["totals"]` are the totals of the hands played to the end,
    and the interrupted hand keeps `Hand.score` = None (its moves stay in the log and replay).
    No Move row is written (abandoning is not an engine action), but the version goes up by one
    so that every timer or computer task scheduled for the old version is stale.

    Raises `IllegalMove` (codes no_table, not_seated, not_started, already_finished) and changes
    nothing when refused.
    """
    if user is None or not user.is_authenticated:
        raise _refuse("not_seated", _("Non sei seduto a questo tavolo."))
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(table_id=table_id).first()
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            raise _refuse("no_table", _("Questo tavolo non esiste."))
        seat_row = Seat.objects.filter(table_id=table_id, user=user).order_by("position").first()
        if seat_row is None:
            raise _refuse("not_seated", _("Non sei seduto a questo tavolo."))
        if game is None:
            raise _refuse("not_started", _("La partita non è ancora iniziata: per lasciare il tavolo usa «Alzati»."))
        if game.finished or table.status != Table.Status.PLAYING:
            raise _refuse("already_finished", _("La partita è già finita."))

        now = timezone.now()
        version = game.version + 1
        winner = 1 - seat_row.side
        target = EngineGame.from_dict(game.state).ruleset.target
        Hand.objects.filter(game=game, number=game.hand_number, finished_at__isnull=True).update(finished_at=now)
        game.abandoned_by = user
        game.version = version
        _finish_match(game, table, winner_side=winner, now=now, result={
            "totals": list(game.totals),
            "winner_side": winner,
            "hands": game.hand_number,
            "target": target,
            "end_reason": "abandoned",
            "abandoned_by": user.get_username(),
            "abandoned_seat": seat_row.position,
        })
        messages = _abandon_messages(game, table, seat_row.position, user.get_username())
        game_id = game.pk

        def after_commit() -> None:
            from .tables import _announce_now

            broadcast.deliver(messages)
            _announce_now(table.pk)
            turns.after_change(game_id, version)  # the game is finished: nothing is scheduled

        transaction.on_commit(after_commit)
    return version


def _abandon_messages(game: Game, table: Table, position: int, username: str) -> list[tuple[str, dict[str, Any]]]:
    """Per recipient: the `match_over` frame, then the final snapshot (finished, with the result)."""
    from ..selectors.tables import get_table, snapshot_frame

    fresh_table = get_table(table.pk)
    engine_game = EngineGame.from_dict(game.state)
    over = {
        "type": "match_over",
        "version": game.version,
        "hand_number": game.hand_number,
        "reason": "abandoned",
        "abandoned_by": username,
        "abandoned_seat": position,
        "totals": list(game.totals),
        "winner_side": game.winner_side,
    }
    messages: list[tuple[str, dict[str, Any]]] = []
    recipients = [(broadcast.seat_group(table.pk, p), p) for p in range(table.players)]
    recipients.append((broadcast.public_group(table.pk), None))
    for group, seat in recipients:
        messages.append((group, dict(over)))
        messages.append((group, snapshot_frame(game, fresh_table, seat, engine_game)))
    return messages


def _change_messages(game: Game, table: Table, *, seat: int, actor: str, action: dict[str, Any],
                     played: EngineGame, finished_hand: dict[str, Any] | None,
                     next_game: EngineGame | None) -> list[tuple[str, dict[str, Any]]]:
    """Per recipient, in order: the event (with that recipient's view of the position the action
    produced), then at the end of a hand the scoring, then the next hand's snapshot."""
    from ..selectors.tables import engine_view, get_table, snapshot_frame

    version = game.version
    shown = public_action(action)
    deadline = game.turn_deadline.isoformat() if game.turn_deadline else None
    server_time = clock.now().isoformat()
    recipients: list[tuple[str, int | None]] = [
        (broadcast.seat_group(table.pk, p), p) for p in range(table.players)
    ] + [(broadcast.public_group(table.pk), None)]
    fresh_table = get_table(table.pk) if (next_game is not None or game.finished) else None
    messages: list[tuple[str, dict[str, Any]]] = []
    for group, position in recipients:
        messages.append((group, {
            "type": "event",
            "version": version,
            "hand_number": finished_hand["hand_number"] if finished_hand else game.hand_number,
            "seat": seat,
            "actor": actor,
            "action": shown,
            "view": engine_view(played, position, version),
            "to_move": None if played.hand_over else played.to_move,
            "deadline": None if played.hand_over else deadline,
            "server_time": server_time,
        }))
        if finished_hand is not None:
            messages.append((group, {"type": "hand_over", "version": version, **finished_hand}))
            if next_game is not None:
                messages.append((group, snapshot_frame(game, fresh_table, position, next_game)))
            else:
                messages.append((group, snapshot_frame(game, fresh_table, position, played)))
    return messages
