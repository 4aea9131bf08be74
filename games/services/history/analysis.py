"""Analisi della partita: esperto reviews each draw and discard a person made in a finished game.

For every such decision the hand is replayed through the engine up to that moment and the seat's
own view is taken (`engine.view(seat)`: its hand, the table, the discard pile, counts), with the
hand's public record so far (`engine.public_record()`: who took which pile, who discarded what,
the same for everybody). Nothing else reaches the review: `bots.expert.candidate_values` deals
the hidden cards at random from what the seat had not seen (the cards the others took from the
pile and still hold stay with them), many times, plays each alternative in the same sampled worlds and
looks a few turns ahead, exactly as esperto does at the table. So a decision is judged by what
the player could know then, never by the cards that were really hidden.

The alternatives: at the draw, the stock against the discard pile; at the discard, the card
played against esperto's four best discards, each less what the pile it leaves is worth to the
other side as medio judges it (`strategy.pile_feed_cost`, shared with medio's own discard): a
pile left to the opponent is a cost (issue 31). A decision is marked when the best alternative was
worth at least `MARK_MIN_GAIN` points more on average; each person keeps the `NOTES_PER_KIND`
costliest draws and the costliest discards of each hand. The review is repeatable: each
decision's sampling is seeded from the game, hand and step.

Requested from the replay page or queued when a game ends (`request_analysis`); computed by the
Celery task `games.analyse_game` (`run_analysis`). A review costs about 15 s of one core per hand
and person (docs/performance.md), so the automatic ones are kept within the analysis worker's
means: capped (`ANALYSIS_QUEUE_MAX` waiting) and expired (`ANALYSIS_QUEUE_EXPIRE_SECONDS`), a
skipped one said so on the replay, where a person's request goes ahead of them.
"""

from __future__ import annotations

import logging
import random
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.bots.expert import candidate_values, ranked_discards
from games.bots.knowledge import determinize
from games.bots.strategy import MEDIO, pile_feed_cost
from games.engine import Card, replay
from games.models import Analysis, Game, Hand, Move, Seat
from games.selectors.replays import card_short
from games.services.errors import ServiceError

logger = logging.getLogger("games.analysis")

MARK_MIN_GAIN = 20  # points: a smaller difference is within what the sampling can tell
NOTES_PER_KIND = 3  # per person, hand and kind (draw, discard): the costliest
DISCARD_ALTERNATIVES = 4

Action = dict[str, Any]


def worlds_per_decision() -> int:
    return int(getattr(settings, "ANALYSIS_WORLDS", 24))


# ----------------------------------------------------------------------------- one decision


def review_decision(view: dict[str, Any], action: Action, rng: random.Random, *, worlds: int,
                    record: list[dict[str, Any]] | None = None, feed: bool = True) -> dict[str, Any] | None:
    """What the played `action` cost at the position of `view` (the acting seat's own view) and
    the hand's public `record` up to then (`Game.public_record`: what everybody had seen).

    Returns {"kind", "chosen", "best", "gain", "values"} or None when there was nothing to
    choose (a single legal draw, a meld or lay-off, one card left to discard). `gain` >= 0 is
    how many points the best alternative was worth over the chosen one, on average over the
    sampled worlds. A discard's value also counts what the pile it leaves is worth to the other
    side (`strategy.pile_feed_cost` at medio's weights; `feed=False`: the review before issue 31).
    """
    kind = action.get("type")
    seat = view["seat"]
    if kind in ("draw", "take_discards"):
        allowed = view.get("allowed") or []
        if "draw" not in allowed or "take_discards" not in allowed:
            return None
        candidates: list[Action] = [{"type": "draw"}, {"type": "take_discards"}]
        chosen = 0 if kind == "draw" else 1
        review_kind = "draw"
    elif kind == "discard":
        card = action.get("card")
        game = determinize(view, rng)  # only its legal discards are read, and they are the seat's own
        cards = ranked_discards(game, seat)
        if len(cards) < 2 or card not in cards:
            return None
        shortlist = [t for t in cards if not t.startswith("2") and t != "JK"][:DISCARD_ALTERNATIVES] or cards[:1]
        if card not in shortlist:
            shortlist.append(card)
        candidates = [{"type": "discard", "card": t} for t in shortlist]
        chosen = shortlist.index(card)
        review_kind = "discard"
    else:
        return None
    values = candidate_values(view, candidates, rng, worlds=worlds, record=record)
    if review_kind == "discard" and feed:
        # A pile left to the opponent is a cost (issue 31): medio's own judgement of what each
        # card makes of the pile for the other side, which esperto's few turns of look-ahead,
        # by their quick pile rule, see only in part.
        values = [v - pile_feed_cost(game, seat, Card.parse(c["card"]), MEDIO)
                  for v, c in zip(values, candidates, strict=True)]
    best = max(range(len(candidates)), key=lambda i: (values[i], i == chosen))
    return {
        "kind": review_kind,
        "chosen": candidates[chosen],
        "best": candidates[best],
        "gain": round(values[best] - values[chosen], 1),
        "values": [round(v, 1) for v in values],
    }


# ----------------------------------------------------------------------------- a whole game


def reviewed_seats(seats: list[Seat]) -> set[int]:
    """The people's seats (a game of computers only: every seat)."""
    people = {s.position for s in seats if s.user_id}
    return people or {s.position for s in seats}


def analyse_hand(game_id: int, hand: Hand, moves: list[Move], seats: set[int], *,
                 worlds: int) -> tuple[list[dict], int]:
    """The marked decisions of one hand and how many decisions were reviewed."""
    engine = replay(hand.deal, [])
    marks: list[dict[str, Any]] = []
    reviewed = 0
    for step, move in enumerate(moves, start=1):
        if (move.seat in seats and move.actor == Move.Actor.PERSON
                and move.action.get("type") in ("draw", "take_discards", "discard")):
            view = engine.view(move.seat)  # what this seat could see; nothing hidden goes further
            rng = random.Random(f"analysis:{game_id}:{hand.number}:{step}")
            review = review_decision(view, move.action, rng, worlds=worlds, record=engine.public_record())
            if review is not None:
                reviewed += 1
                if review["gain"] >= MARK_MIN_GAIN and review["best"] != review["chosen"]:
                    marks.append({"hand": hand.number, "step": step, "seat": move.seat, **review})
        engine.apply(move.seat, move.action)
    kept: list[dict[str, Any]] = []
    for seat in sorted(seats):
        for kind in ("draw", "discard"):
            own = sorted((m for m in marks if m["seat"] == seat and m["kind"] == kind), key=lambda m: -m["gain"])
            kept.extend(own[:NOTES_PER_KIND])
    kept.sort(key=lambda m: m["step"])
    return kept, reviewed


def analyse_game(game: Game, *, worlds: int | None = None) -> tuple[list[dict], int]:
    worlds = worlds or worlds_per_decision()
    seats = reviewed_seats(list(Seat.objects.filter(table_id=game.table_id)))
    notes: list[dict[str, Any]] = []
    reviewed = 0
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    for hand in Hand.objects.filter(game=game).order_by("number"):
        hand_notes, count = analyse_hand(game.pk, hand, [m for m in moves if m.hand_number == hand.number],
                                         seats, worlds=worlds)
        notes.extend(hand_notes)
        reviewed += count
    return notes, reviewed


# ----------------------------------------------------------------------------- requests and the task


def request_analysis(game: Game, *, automatic: bool = False) -> Analysis:
    """Queue the analysis of a finished game, once: a second request returns the first unless it
    failed or was skipped, which a person's request queues again. Raises ServiceError for a game
    still in play.

    A person's request (`automatic=False`, from the replay) goes on its own queue, which the
    analysis worker serves ahead of the automatic backlog. An automatic one (a match just ended) is
    skipped, not queued, when `ANALYSIS_QUEUE_MAX` automatic reviews are already waiting, and
    carries an expiry: the reviews stay within the worker's means and the replay says "saltata"."""
    if not game.finished:
        raise ServiceError("analysis_unfinished")
    with transaction.atomic():
        analysis, created = Analysis.objects.select_for_update().get_or_create(
            game=game, defaults={"asked": not automatic})
        if not created and (automatic or not can_request(analysis)):
            return analysis
        if automatic and _automatic_backlog_full(besides=analysis.pk):
            analysis.status = Analysis.Status.SKIPPED
            analysis.save(update_fields=["status"])
            logger.info("Analysis of game %s skipped: %s automatic reviews waiting", game.pk, queue_max())
            return analysis
        if not created:
            analysis.status = Analysis.Status.QUEUED
            analysis.asked = True
            analysis.error = ""
            analysis.requested_at = timezone.now()
            analysis.save(update_fields=["status", "asked", "error", "requested_at"])
        game_id = game.pk
        transaction.on_commit(lambda: _enqueue(game_id, asked=not automatic))
    return analysis


def queue_max() -> int:
    return int(getattr(settings, "ANALYSIS_QUEUE_MAX", 60))


def queue_expire_seconds() -> int:
    return int(getattr(settings, "ANALYSIS_QUEUE_EXPIRE_SECONDS", 3600))


def _automatic_backlog_full(*, besides: int) -> bool:
    """Whether `ANALYSIS_QUEUE_MAX` automatic reviews are waiting already, besides the analysis
    `besides` being queued (0: never). The ones that waited past their expiry are marked skipped
    first: a message the broker dropped as expired never reaches the task, and its row must not
    hold a place in the count for ever. A soft cap: two matches ending at the same moment may
    both pass it."""
    limit = queue_max()
    if not limit:
        return False
    waiting = Analysis.objects.filter(status=Analysis.Status.QUEUED, asked=False)
    waiting.filter(requested_at__lt=_expired_before()).update(status=Analysis.Status.SKIPPED)
    return waiting.exclude(pk=besides).count() >= limit


def _expired_before():
    return timezone.now() - timedelta(seconds=queue_expire_seconds())


def _enqueue(game_id: int, *, asked: bool) -> None:
    """On the analysis queues, never the one the computer's moves wait in (settings.py): a person's
    request on its own queue, served ahead of the automatic backlog; an automatic one with an
    expiry, twice the wait the task itself allows (the task marks a late one skipped; the broker
    drops what nobody took at all)."""
    from games.tasks import analyse_game  # here: the tasks module imports this service (an edge above it)

    if asked:
        analyse_game.apply_async((game_id,), queue=settings.CELERY_ANALYSIS_ASKED_QUEUE)
    else:
        analyse_game.apply_async((game_id,), queue=settings.CELERY_ANALYSIS_QUEUE,
                                 expires=2 * queue_expire_seconds())


def queue_after_game(game_id: int) -> None:
    """Called when a match ends (after its commit): analyse it if the site is set to, and if a
    person played in it."""
    if not getattr(settings, "ANALYSIS_AFTER_GAME", True):
        return
    game = Game.objects.filter(pk=game_id, finished=True).first()
    if game is None or not Seat.objects.filter(table_id=game.table_id, user__isnull=False).exists():
        return
    request_analysis(game, automatic=True)


def run_analysis(game_id: int) -> str:
    """The task's work: review the game and store the marks. A finished analysis is not redone
    (a task delivered twice does nothing the second time)."""
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().filter(game_id=game_id).first()
        if analysis is None or analysis.status in (Analysis.Status.DONE, Analysis.Status.SKIPPED):
            return "nothing to do"
        if _expired(analysis):
            analysis.status = Analysis.Status.SKIPPED
            analysis.save(update_fields=["status"])
            logger.info("Analysis of game %s skipped: it waited past ANALYSIS_QUEUE_EXPIRE_SECONDS", game_id)
            return "skipped: waited too long"
        analysis.status = Analysis.Status.RUNNING
        analysis.save(update_fields=["status"])
    game = Game.objects.get(pk=game_id)
    worlds = worlds_per_decision()
    try:
        notes, reviewed = analyse_game(game, worlds=worlds)
    except Exception as exc:  # a game that does not replay: say so on the page, keep the worker going
        logger.exception("Analysis of game %s failed", game_id)
        Analysis.objects.filter(pk=analysis.pk).update(status=Analysis.Status.FAILED, error=str(exc)[:500],
                                                       finished_at=timezone.now())
        return "failed"
    Analysis.objects.filter(pk=analysis.pk).update(status=Analysis.Status.DONE, notes=notes, reviewed=reviewed,
                                                   worlds=worlds, finished_at=timezone.now())
    return f"{len(notes)} marks of {reviewed} decisions"


def _expired(analysis: Analysis) -> bool:
    """An automatic review still waiting past its expiry: the backlog it sat in was beyond the
    worker's means, and running it now would only push the next ones later."""
    return (analysis.status == Analysis.Status.QUEUED and not analysis.asked
            and analysis.requested_at < _expired_before())


def skipped(analysis: Analysis | None) -> bool:
    """Skipped, or an automatic review left waiting past its expiry (which the task will skip)."""
    return analysis is not None and (analysis.status == Analysis.Status.SKIPPED or _expired(analysis))


def can_request(analysis: Analysis | None) -> bool:
    """Whether a person may ask for it from the replay: none yet, it failed, or it was skipped."""
    return analysis is None or analysis.status == Analysis.Status.FAILED or skipped(analysis)


# ----------------------------------------------------------------------------- words


def _gain_text(gain: float) -> str:
    return f"+{round(gain)}"


def note_text(note: dict[str, Any]) -> str:
    """A mark in the page's language."""
    gain = _gain_text(note["gain"])
    if note["kind"] == "draw":
        if note["best"]["type"] == "take_discards":
            return _("Qui prendere gli scarti valeva in media %(gain)s punti rispetto al tallone.") % {"gain": gain}
        return _("Qui pescare dal tallone valeva in media %(gain)s punti rispetto agli scarti.") % {"gain": gain}
    return _("Qui scartare %(best)s invece di %(card)s valeva in media %(gain)s punti.") % {
        "best": card_short(note["best"]["card"]), "card": card_short(note["chosen"]["card"]), "gain": gain}


def status_text(analysis: Analysis | None) -> str:
    if analysis is None:
        return ""
    if skipped(analysis):
        return _("Analisi saltata: quando la partita è finita c'erano troppe analisi in attesa. "
                 "Se ti interessa, chiedila qui: passa davanti a quelle automatiche.")
    if analysis.status in (Analysis.Status.QUEUED, Analysis.Status.RUNNING):
        return _("Analisi in corso: esperto sta rivedendo le pescate e gli scarti dei giocatori. "
                 "Ricarica la pagina tra poco.")
    if analysis.status == Analysis.Status.FAILED:
        return _("L'analisi non è riuscita. Puoi chiederla di nuovo.")
    if not analysis.notes:
        return _("Analisi pronta: %(n)s decisioni riviste, nessuna costava più di %(min)s punti.") % {
            "n": analysis.reviewed, "min": MARK_MIN_GAIN}
    return _("Analisi pronta: %(n)s decisioni riviste, %(marked)s segnate nella registrazione.") % {
        "n": analysis.reviewed, "marked": len(analysis.notes)}


def hand_notes(analysis: Analysis | None, number: int) -> list[dict[str, Any]]:
    """The marks of hand `number`, with their text, for the replay page."""
    if analysis is None or analysis.status != Analysis.Status.DONE:
        return []
    return [{"step": n["step"], "seat": n["seat"], "kind": n["kind"], "gain": n["gain"], "text": note_text(n)}
            for n in analysis.notes if n["hand"] == number]
