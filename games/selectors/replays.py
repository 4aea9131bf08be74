"""Replays of finished games, rebuilt through the engine from each hand's deal and moves.

A replay never trusts a stored snapshot: it starts from `Hand.deal` and applies the hand's Move
rows (ordered by seq) one by one with the engine, which checks every one of them. The result is
then compared with what was recorded: the hand's score (`Hand.score`), the running totals at the
start of each hand (the deal's totals against the previous hands' scores), and on the last hand
the match result (`Game.result`). Any disagreement — an illegal move, a move by the wrong seat,
a different score — is a `ReplayMismatch`: logged, and shown to people as an Italian error.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from games.engine import Game as EngineGame
from games.engine import IllegalMove, replay
from games.models import Game, Hand, Move, Seat

logger = logging.getLogger("games.replays")

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


class ReplayMismatch(Exception):
    """The recorded game does not replay to its recorded outcome."""

    def __init__(self, message: str, *, step: int | None = None) -> None:
        self.message = message
        self.step = step
        super().__init__(message)


@dataclass
class HandReplay:
    """One hand, step by step: frame 0 is the deal, frame k the position after move k."""

    number: int
    frames: list[dict[str, Any]] = field(default_factory=list)
    score: list[dict[str, int]] | None = None
    error: str | None = None
    error_step: int | None = None


def card_short(text: str) -> str:
    """A card as people read it: 10♥, K♠, jolly."""
    if text == "JK":
        return _("jolly")
    return ("10" if text[0] == "T" else text[0]) + SUIT_SYMBOL.get(text[1], text[1])


def _cards_short(texts: list[str]) -> str:
    return " ".join(card_short(t) for t in texts)


def seat_names(seats: list[Seat]) -> dict[int, str]:
    names = {}
    for seat in seats:
        if seat.user_id:
            names[seat.position] = seat.user.username
        else:
            names[seat.position] = _("Computer (%(level)s)") % {"level": seat.get_bot_level_display() or "—"}
    return names


def _frame(engine: EngineGame, text: str, seat: int | None, kind: str) -> dict[str, Any]:
    state = engine.position()
    score = engine.score()
    return {
        "text": text,
        "seat": seat,
        "kind": kind,
        "hands": state["hands"],
        "melds": [[{"cards": m["cards"], "wild": m["wild"], "burraco": m["burraco"]} for m in side]
                  for side in state["melds"]],
        "discard": state["discard"],
        "stock": len(state["stock"]),
        "pozzetti": state["pozzetto_state"],
        "to_move": None if engine.hand_over else engine.to_move,
        "score": [score[0]["total"], score[1]["total"]],
        "over": engine.hand_over,
    }


def _describe(name: str, action: dict[str, Any], before: dict[str, Any], after: dict[str, Any],
              engine: EngineGame, seat: int, *, public: bool = False) -> str:
    """The step in words, from the frames before and after it (all cards are face up here).
    `public`: as the live table tells it, where a card drawn from the stock is not named."""
    kind = action.get("type")
    if kind == "draw" and public:
        text = _("%(name)s pesca dal tallone") % {"name": name}
    elif kind == "draw":
        drawn = list(after["hands"][seat])
        for text in before["hands"][seat]:
            if text in drawn:
                drawn.remove(text)
        card = card_short(drawn[-1]) if drawn else "?"
        text = _("%(name)s pesca dal tallone: %(card)s") % {"name": name, "card": card}
    elif kind == "take_discards":
        text = _("%(name)s raccoglie gli scarti (%(cards)s)") % {"name": name, "cards": _cards_short(before["discard"])}
    elif kind == "meld":
        text = _("%(name)s cala %(cards)s") % {"name": name, "cards": _cards_short(action.get("cards", []))}
    elif kind == "lay_off":
        text = _("%(name)s lega %(cards)s") % {"name": name, "cards": _cards_short(action.get("cards", []))}
    else:
        text = _("%(name)s scarta %(card)s") % {"name": name, "card": card_short(action.get("card", "?"))}
    side = seat % 2
    if before["pozzetti"][side] != "taken" and after["pozzetti"][side] == "taken":
        text += " — " + _("prende il pozzetto")
    if engine.hand_over:
        if engine.end_reason == "closed":
            text += " — " + _("chiude la mano")
        else:
            text += " — " + _("la mano finisce: il tallone è esaurito")
    return text


def replay_hand(hand: Hand, moves: list[Move], names: dict[int, str],
                result: HandReplay | None = None) -> tuple[HandReplay, EngineGame]:
    """Replay one hand from its deal, checking every move, and compare its score with Hand.score.

    Frames are appended to `result` as they are built, so after a ReplayMismatch it holds the
    steps that did replay.
    """
    result = result or HandReplay(number=hand.number)
    try:
        engine = replay(hand.deal, [])
    except (IllegalMove, KeyError, TypeError) as exc:
        raise ReplayMismatch(_("La distribuzione della mano %(n)s non è valida: %(msg)s")
                             % {"n": hand.number, "msg": getattr(exc, "message", str(exc))}) from None
    result.frames.append(_frame(engine, _("Distribuzione: tocca a %(name)s") % {
        "name": names.get(engine.to_move, "?")}, None, "deal"))
    for step, move in enumerate(moves, start=1):
        if engine.hand_over:
            raise ReplayMismatch(_("Mossa %(step)s registrata dopo la fine della mano %(n)s")
                                 % {"step": step, "n": hand.number}, step=step)
        if move.seat != engine.to_move:
            raise ReplayMismatch(
                _("Mossa %(step)s della mano %(n)s: registrata per il posto %(seat)s, ma toccava al posto %(to_move)s")
                % {"step": step, "n": hand.number, "seat": move.seat + 1, "to_move": engine.to_move + 1}, step=step)
        try:
            engine.apply(move.seat, move.action)
        except IllegalMove as exc:
            raise ReplayMismatch(_("Mossa %(step)s della mano %(n)s rifiutata dal motore: %(msg)s")
                                 % {"step": step, "n": hand.number, "msg": exc.message}, step=step) from None
        before = result.frames[-1]
        frame = _frame(engine, "", move.seat, move.action.get("type", ""))
        frame["text"] = _describe(names.get(move.seat, "?"), move.action, before, frame, engine, move.seat)
        result.frames.append(frame)
    if hand.score is not None and (not engine.hand_over or engine.score() != hand.score):
        raise ReplayMismatch(_("La mano %(n)s, rigiocata, non dà il punteggio registrato") % {"n": hand.number})
    if hand.score is None and engine.hand_over:
        raise ReplayMismatch(_("La mano %(n)s risulta finita ma non ha un punteggio registrato") % {"n": hand.number})
    result.score = engine.score() if engine.hand_over else None
    return result, engine


def _check_totals(game: Game, hands: list[Hand], hand: Hand, engine: EngineGame) -> None:
    """The deal's running totals must be the sum of the earlier hands' recorded scores; the
    last hand must end on the recorded match result."""
    earlier = [h for h in hands if h.number < hand.number]
    expected = [sum(h.score[side]["total"] for h in earlier if h.score) for side in (0, 1)]
    if list(engine.totals) != expected:
        raise ReplayMismatch(_("I totali all'inizio della mano %(n)s non tornano con le mani precedenti")
                             % {"n": hand.number})
    if hand.number == hands[-1].number and game.finished and engine.hand_over:
        match = engine.match
        recorded = (game.result or {}).get("totals")
        if recorded is not None and list(match.totals) != list(recorded):
            raise ReplayMismatch(_("Il risultato rigiocato (%(a)s–%(b)s) non è quello registrato (%(c)s–%(d)s)") % {
                "a": match.totals[0], "b": match.totals[1], "c": recorded[0], "d": recorded[1]})
        if game.abandoned_by_id is None and match.finished and match.winner != game.winner_side:
            raise ReplayMismatch(_("Il vincitore rigiocato non è quello registrato"))


def _log(game: Game, number: int, exc: ReplayMismatch) -> None:
    logger.error("Replay mismatch in game %s hand %s: %s", game.pk, number, exc.message)


def build_hand_replay(game: Game, number: int) -> HandReplay:
    """The replay of hand `number` of a finished game. A mismatch is logged and carried as
    `error` (with the frames up to the step that failed), never raised to the page."""
    if not game.finished:
        raise ValueError("only finished games are replayed: a game in progress has hidden cards")
    hands = list(Hand.objects.filter(game=game).order_by("number"))
    hand = next((h for h in hands if h.number == number), None)
    if hand is None:
        raise Hand.DoesNotExist(number)
    seats = list(Seat.objects.filter(table_id=game.table_id).select_related("user").order_by("position"))
    moves = list(Move.objects.filter(game=game, hand_number=number).order_by("seq"))
    result = HandReplay(number=number)
    try:
        _result, engine = replay_hand(hand, moves, seat_names(seats), result)
        _check_totals(game, hands, hand, engine)
    except ReplayMismatch as exc:
        _log(game, number, exc)
        result.error = exc.message
        result.error_step = exc.step
    return result


def verify_game(game: Game) -> list[str]:
    """Replay every hand of a finished game; return the Italian description of each problem."""
    hands = list(Hand.objects.filter(game=game).order_by("number"))
    if not hands:
        return [_("La partita non ha mani registrate")]
    seats = list(Seat.objects.filter(table_id=game.table_id).select_related("user").order_by("position"))
    names = seat_names(seats)
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    problems = []
    for hand in hands:
        try:
            _result, engine = replay_hand(hand, [m for m in moves if m.hand_number == hand.number], names)
            _check_totals(game, hands, hand, engine)
        except ReplayMismatch as exc:
            _log(game, hand.number, exc)
            problems.append(exc.message)
    return problems


def log_labels() -> dict[str, str]:
    """The words of `_describe` for the live table's script, with {name}, {cards}, {card} where
    the Python text has %(name)s...: the table's log and the replay read the same."""
    holes = {"name": "{name}", "cards": "{cards}", "card": "{card}"}
    return {
        "draw": _("%(name)s pesca dal tallone") % holes,
        "take": _("%(name)s raccoglie gli scarti (%(cards)s)") % holes,
        "meld": _("%(name)s cala %(cards)s") % holes,
        "layOff": _("%(name)s lega %(cards)s") % holes,
        "discard": _("%(name)s scarta %(card)s") % holes,
        "pozzetto": _("prende il pozzetto"),
        "closes": _("chiude la mano"),
        "exhausted": _("la mano finisce: il tallone è esaurito"),
    }


def table_log(game: Game) -> dict[str, Any]:
    """The hand in play at a live table, move by move in the replay's words, from public facts
    only: a card drawn from the stock is never named, so any player or watcher may read it.
    Rebuilt through the engine from the hand's deal and moves (the page asks for it on load)."""
    hand = Hand.objects.filter(game=game, number=game.hand_number).first()
    out: dict[str, Any] = {"hand_number": game.hand_number, "version": game.version, "lines": []}
    if hand is None:
        return out
    seats = list(Seat.objects.filter(table_id=game.table_id).select_related("user").order_by("position"))
    names = seat_names(seats)
    people = {s.position for s in seats if s.user_id}
    moves = Move.objects.filter(game=game, hand_number=game.hand_number).order_by("seq")
    try:
        engine = replay(hand.deal, [])
        before = _frame(engine, "", None, "deal")
        for move in moves:
            engine.apply(move.seat, move.action)
            after = _frame(engine, "", move.seat, move.action.get("type", ""))
            text = _describe(names.get(move.seat, "?"), move.action, before, after, engine, move.seat, public=True)
            if move.actor == Move.Actor.TIMEOUT:
                text += f" ({_('tempo scaduto')})"
            elif move.actor == Move.Actor.COMPUTER and move.seat in people:
                text += f" ({_('giocata dal computer')})"
            out["lines"].append({"version": move.seq, "seat": move.seat, "actor": move.actor, "text": text})
            before = after
    except (IllegalMove, KeyError, TypeError) as exc:
        logger.error("Live log of game %s hand %s does not replay: %s", game.pk, hand.number, exc)
    return out
