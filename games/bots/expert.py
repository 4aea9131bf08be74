"""The expert ("esperto"): determinized Monte Carlo over the greedy player.

At the decisions that shape a hand (take the discard pile or draw; which card to discard) the
expert deals the hidden cards at random, consistently with its view, many times over. In each
sampled world it plays every candidate and then lets the greedy player play all seats for a few
turns; the candidate with the best average outcome for its side wins. The same worlds and the
same look-ahead dice serve every candidate, so the comparison is between the moves and not
between lucky and unlucky deals. Melds and lay-offs follow the greedy player (they are rarely
close calls and cost time), and so do the pozzetto and the close when the greedy player's turn
search finds them (`strategy.finishing_line`). It stops sampling when its time budget runs out.
"""

from __future__ import annotations

import random
import time
from typing import Any

from games.engine import Game

from .knowledge import Memory, Record, determinize, memory_of
from .strategy import DEFAULT, Params, best_play, discard_scores, draw_action, finishing_line, greedy_action

DEFAULT_BUDGET_SECONDS = 0.4  # p99 ~0.40 s measured, against a 1 s limit; 0.15 s won 61.5%, 0.4 s 63.5%
HORIZON_TURNS = 6  # look-ahead: turn ends (discards) after the candidate; 4 until issue 13 (6: +20 a hand)
MAX_DISCARD_CANDIDATES = 4
MAX_WORLDS = 400
# The greedy player's own choice stands unless another candidate beats it by this many points on
# average: with a few dozen sampled worlds the means are noisy, and without it esperto left the
# greedy choice in 44 % of its decisions, often on noise (issue 13: 57.5 % -> 61.0 % against medio).
DEVIATION_MARGIN = 15.0

Action = dict[str, Any]


def expert_action(view: dict[str, Any], rng: random.Random, *, budget_seconds: float | None = None,
                  params: Params = DEFAULT, worlds: int | None = None, record: Record | None = None) -> Action:
    """The expert's action for the viewing seat.

    It samples worlds until ``budget_seconds`` (default :data:`DEFAULT_BUDGET_SECONDS`) would be
    overrun. ``worlds`` instead fixes how many worlds it samples and ignores the clock, so the
    choice is a function of the view and the rng alone (repeatable tournaments and tests).
    ``record`` (`Game.public_record`) is the hand's public history: with it the cards the others
    took from the pile stay in their hands in every world, and each world counts as much as the
    others' last choices are likely in it (`knowledge.Memory`).
    """
    start = time.perf_counter()
    budget = DEFAULT_BUDGET_SECONDS if budget_seconds is None else budget_seconds
    seat = view["seat"]
    memory = memory_of(view, record)
    game = _deal(view, rng, memory)
    candidates = _candidates(game, seat, params)
    if len(candidates) == 1:
        return candidates[0]
    totals = [0.0] * len(candidates)
    sampled = 0
    weights = 0.0
    while True:
        world = _deal(view, rng, memory) if sampled else game
        weight = 1.0 if memory is None else memory.weight(world)
        seed = rng.getrandbits(32)
        for i, action in enumerate(candidates):
            sample = world.copy() if i < len(candidates) - 1 else world
            totals[i] += weight * _rollout(sample, seat, action, random.Random(seed), params)
        sampled += 1
        weights += weight
        if worlds is not None:
            if sampled >= worlds:
                break
            continue
        elapsed = time.perf_counter() - start
        # Stop before a world that would overrun the budget (each world costs about the same).
        if elapsed + elapsed / sampled > budget or sampled >= MAX_WORLDS:
            break
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    if best != 0 and (totals[best] - totals[0]) / weights < DEVIATION_MARGIN:
        best = 0
    return candidates[best]


def candidate_values(view: dict[str, Any], candidates: list[Action], rng: random.Random, *,
                     worlds: int, params: Params = DEFAULT, record: Record | None = None) -> list[float]:
    """The expert's mean value of each candidate action for the viewing seat, over `worlds`
    sampled worlds (the same worlds and look-ahead dice for every candidate), weighted by the
    hand's public `record` as in :func:`expert_action` when it is given.

    Only `view` and `record` are read: the hidden cards are dealt by `rng` from what the seat has
    not seen, so a review of a finished game judges a move by what the player could know then.
    """
    seat = view["seat"]
    memory = memory_of(view, record)
    totals = [0.0] * len(candidates)
    weights = 0.0
    for _ in range(worlds):
        world = _deal(view, rng, memory)
        weight = 1.0 if memory is None else memory.weight(world)
        weights += weight
        seed = rng.getrandbits(32)
        for i, action in enumerate(candidates):
            sample = world.copy() if i < len(candidates) - 1 else world
            totals[i] += weight * _rollout(sample, seat, action, random.Random(seed), params)
    return [t / weights for t in totals]


def _deal(view: dict[str, Any], rng: random.Random, memory: Memory | None) -> Game:
    """One sampled world: the hidden cards dealt at random, the remembered ones pinned."""
    return determinize(view, rng) if memory is None else memory.deal(view, rng)


def ranked_discards(game: Game, seat: int, params: Params = DEFAULT) -> list[str]:
    """The legal discards, best first by the greedy player's reckoning (a wild last)."""
    legal = [a["card"] for a in game.legal_actions(seat, kinds=("discard",))]
    scores = discard_scores(game, seat, legal, params)
    return sorted(legal, key=lambda t: (scores[t], t))


def _candidates(game: Game, seat: int, params: Params) -> list[Action]:
    """The actions worth comparing; the greedy player's own choice comes first (ties keep it)."""
    if game.phase == "draw":
        greedy = draw_action(game, seat, params)
        if not game.discard_pile or not game.stock:
            return [greedy]
        other = {"type": "take_discards"} if greedy["type"] == "draw" else {"type": "draw"}
        return [greedy, other]
    line = finishing_line(game, seat, params)  # the pozzetto or a winning close this turn
    if line:
        return [line[0]]
    play = best_play(game, seat, params)
    if play is not None:
        return [play]
    legal = [a["card"] for a in game.legal_actions(seat, kinds=("discard",))]
    scores = discard_scores(game, seat, legal, params)
    ranked = sorted(legal, key=lambda t: (scores[t], t))
    # Never a wild (scored 1000+) unless nothing else is left.
    ranked = [t for t in ranked if scores[t] < 900] or ranked
    return [{"type": "discard", "card": t} for t in ranked[:MAX_DISCARD_CANDIDATES]]


def _rollout(game: Game, seat: int, action: Action, rng: random.Random, params: Params) -> float:
    side = seat % 2
    game.apply(seat, action)
    turns_left = HORIZON_TURNS
    steps = 0
    while not game.hand_over and turns_left > 0 and steps < 200:
        mover = game.to_move
        act = greedy_action(game, mover, rng, params)
        game.apply(mover, act)
        if act["type"] == "discard":
            turns_left -= 1
        steps += 1
    return _evaluate(game, side)


def _evaluate(game: Game, side: int) -> float:
    """Score difference as if the hand ended now, plus what the hands promise."""
    score = game.score()
    value = score[side]["total"] - score[1 - side]["total"]
    if game.hand_over:
        return value
    # Cards in hand are not lost yet: count them at half (they may still be melded).
    for seat in range(game.players):
        in_hand = sum(c.points for c in game.hands[seat])
        value += (in_hand / 2) * (1 if seat % 2 == side else -1)
    return value
