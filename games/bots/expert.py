"""The expert ("esperto"): determinized Monte Carlo over the greedy player.

At the decisions that shape a hand (take the discard pile or draw; which card to discard) the
expert deals the hidden cards at random, consistently with its view, many times over. In each
sampled world it plays every candidate (the first is medio's own choice, which stands unless
another does clearly better: :data:`BASELINE_PARAMS`) and then lets the greedy player, with the
weights that take piles for points (:data:`ROLLOUT_PARAMS`), play all seats for a few turns
(:class:`RolloutPlayer`: the other side also takes a short pile that goes down at once, as a
person would); the candidate with the best average outcome for its side wins, the outcome
being the score as it stands plus the cards in hand at half (:func:`promise`, a richer leaf,
is there but off: it measured weaker). The same worlds and the same look-ahead dice serve every
candidate, so the comparison is between the moves and not between lucky and unlucky deals.
Melds and lay-offs follow the greedy player's turn (:func:`turn_plan`), but where that turn
spends a wild esperto also plays the same turn keeping its wilds in hand, each to its discard and
on through the look-ahead, and keeps the wilds when that is worth more; the pozzetto and the close
follow the greedy player's turn search when it finds them (`strategy.finishing_line`). It stops
sampling when its budget of CPU time runs out (or, on a machine so busy that the wall clock runs
far ahead, at a wall-clock cap, which also cuts a look-ahead short: a decision never runs past it
by more than one move of the look-ahead).
"""

from __future__ import annotations

import dataclasses
import random
import time
from typing import Any

from games.engine import Card, Game, IllegalMove, Meld, lay_off

from .knowledge import Memory, Record, determinize, memory_of
from .strategy import (
    DEFAULT,
    MEDIO,
    MEDIO_WITHOUT_RECORD,
    PLAYS_FOR_POINTS,
    Params,
    PileJudge,
    best_play,
    candidate_melds,
    discard_action,
    discard_scores,
    draw_action,
    finishing_line,
    greedy_action,
    hopeless,  # moved to strategy: finishing_line skips the search with it
    no_gift,
    opponent_threat,
    opponents_can_take,
    stranded,  # noqa: F401  (moved to strategy; kept importable from here)
)

# The budget is CPU time of the deciding thread (`time.thread_time`), so a worker that also serves
# tables, or a busy machine, samples as many worlds as an idle one and plays as well; the wall
# clock only caps a decision (WALL_LIMIT_SECONDS) so that nobody waits past a second.
DEFAULT_BUDGET_SECONDS = 0.4  # CPU seconds; 0.15 s won 61.5 %, 0.4 s 63.5 % (wall-clock then)
WALL_LIMIT_SECONDS = 0.9  # no world starts that would end past this, none runs on past it (1 s: the limit) ...
WALL_LIMIT_FACTOR = 2.5  # ... nor past this many times the budget (a small budget, a small cap)
HORIZON_TURNS = 6  # look-ahead: turn ends (discards) after the candidate; 4 until issue 13 (6: +20 a hand)
MAX_DISCARD_CANDIDATES = 4
MAX_WORLDS = 400
# The greedy player's own choice stands unless another candidate beats it by this many points on
# average: with a few dozen sampled worlds the means are noisy, and without it esperto left the
# greedy choice in 44 % of its decisions, often on noise (issue 13: 57.5 % -> 61.0 % against medio).
DEVIATION_MARGIN = 15.0
# In the look-ahead the other side also takes a pile of at most this many cards when every one
# of them goes down at once (a lay-off on its melds, or a meld with two cards of its hand): a
# person takes that single card, which the greedy player, weighing it like any stock card, often
# leaves (its estimate of the gain, about 13 for a card that lays off, is under its 20).
OPPONENT_TAKES_USABLE = 2
# No discard that lays off on the other side's melds while one that does not is left: medio
# never throws one (0 in 3,028 discards), but esperto's look-ahead chose one in 14 % of its
# discards (issue 13), against an opponent model that, like medio, seldom takes a one-card pile
# for a lay-off; a person does.
SAFE_DISCARDS = True
# In the play phase esperto also weighs medio's turn played as if the wilds were not in hand (they
# stay there: no dirty meld, no wild laid off this turn) against medio's own turn, whenever the two
# part ways; each is played to its discard in every sampled world, and the look-ahead follows.
PLAN_KEEP_WILDS = True
MAX_PLAN_ACTIONS = 24  # a turn's plays and its discard (a safety bound: a turn is far shorter)
# Playing for points (issue 31, point 4). The choice that stands unless another beats it by
# DEVIATION_MARGIN is medio's as the site plays it (its pile judged on a copy, given by the
# caller), so esperto starts from the stronger level; the look-ahead plays every seat with the
# weights that take piles for points (a strong player takes nearly every pile that pays), but
# by their quick rule: the judgement on a copy in every turn of every world would leave a few
# worlds in the budget.
BASELINE_PARAMS = MEDIO
ROLLOUT_PARAMS = PLAYS_FOR_POINTS
# ... medio's discard included, even one that lays off on the other side's melds (SAFE_DISCARDS
# then only keeps such cards out of the others): medio weighs what a discard adds to the pile
# (`Params.pile_feed`), and the look-ahead's opponents take piles.
MEDIO_DISCARD_FIRST = True
# The draw (issue 31, session 8). With DRAW_LOOKAHEAD off, esperto's draw is medio's (its pile
# judged on a copy) and the look-ahead is spent on the plays and the discard only; otherwise the
# other draw must beat medio's by DRAW_DEVIATION_MARGIN (None: DEVIATION_MARGIN) a world.
# Both stay as they were: against the sparring partner (8 worlds, seed 41, the same 40 duplicate
# hands) esperto as it is scored +76.5 [-40.7, 193.7] a hand taking 30 piles; medio's draw
# (62 piles) -18.2 [-112.8, 76.3], no margin at the draw (21 piles) +7.5 [-123.0, 138.0].
# Neither is shown worse beyond the noise, but neither is better.
DRAW_LOOKAHEAD = True
DRAW_DEVIATION_MARGIN: float | None = None
# In the look-ahead the deciding side also takes a short pile that goes down at once (as the
# other side does: OPPONENT_TAKES_USABLE). Off: no gain shown (session 8, the same 40 hands as
# above: +77.6 [-41.3, 196.5] a hand; on the same pairs +1.1 [-47.9, 50.2] over esperto as it is).
OWN_TAKES_USABLE = False

Action = dict[str, Any]
Plan = list[Action]  # actions of one seat, the first is the decision's; the rest follow in order


def expert_action(view: dict[str, Any], rng: random.Random, *, budget_seconds: float | None = None,
                  params: Params | None = None, worlds: int | None = None, record: Record | None = None,
                  pile_judge: PileJudge | None = None) -> Action:
    """The expert's action for the viewing seat.

    It samples worlds until ``budget_seconds`` (default :data:`DEFAULT_BUDGET_SECONDS`) of this
    thread's CPU time (`time.thread_time`: what other threads and processes take of the machine
    does not count) would be overrun, or the wall clock's cap (:data:`WALL_LIMIT_SECONDS`, at
    most :data:`WALL_LIMIT_FACTOR` times the budget) would be; a world still running at that cap
    is dropped (if it was the first, the greedy player's choice stands). ``worlds`` instead fixes
    how many worlds it samples and ignores the clocks, so the choice is a function of the view
    and the rng alone (repeatable tournaments and tests).
    ``record`` (`Game.public_record`) is the hand's public history: with it the cards the others
    took from the pile stay in their hands in every world, and each world counts as much as the
    others' last choices are likely in it (`knowledge.Memory`).
    ``params`` (default :data:`BASELINE_PARAMS`, medio's) choose the candidates, the first being
    medio's own choice; with ``pile_judge`` (`sparring.copy_pile_judge`, as `choose_action`
    gives medio) its draw is medio's. The look-ahead plays :data:`ROLLOUT_PARAMS`.
    """
    start = time.perf_counter()
    cpu_start = time.thread_time()
    budget = DEFAULT_BUDGET_SECONDS if budget_seconds is None else budget_seconds
    seat = view["seat"]
    memory = memory_of(view, record)
    game = _deal(view, rng, memory)
    params, pile_judge = _baseline(params, pile_judge, record)
    candidates = _plans(game, seat, params, pile_judge, rng, _known_to_next(view, memory, params))
    if len(candidates) == 1:
        return candidates[0][0]
    totals = [0.0] * len(candidates)
    player = RolloutPlayer(ROLLOUT_PARAMS, seat % 2)
    sampled = 0
    weights = 0.0
    wall_cap = min(budget * WALL_LIMIT_FACTOR, WALL_LIMIT_SECONDS)
    # With a fixed number of worlds the clocks are ignored, so the choice is repeatable.
    deadline = None if worlds is not None else start + wall_cap
    while True:
        world = _deal(view, rng, memory) if sampled else game
        weight = 1.0 if memory is None else memory.weight(world)
        seed = rng.getrandbits(32)
        try:
            values = [_rollout(world.copy() if i < len(candidates) - 1 else world, seat, action,
                               random.Random(seed), player, deadline)
                      for i, action in enumerate(candidates)]
        except OutOfTime:
            # A world cut short is dropped whole: the candidates are compared on the same worlds.
            break
        for i, value in enumerate(values):
            totals[i] += weight * value
        sampled += 1
        weights += weight
        if worlds is not None:
            if sampled >= worlds:
                break
            continue
        # Stop before a world that would overrun the budget (each world costs about the same), in
        # CPU time of this thread, or the wall-clock cap (a descheduled world is slower).
        cpu = time.thread_time() - cpu_start
        wall = time.perf_counter() - start
        if cpu + cpu / sampled > budget or wall + wall / sampled > wall_cap:
            break
        if sampled >= MAX_WORLDS:
            break
    if not sampled:  # the first world did not fit in the cap: the greedy player's choice stands
        return candidates[0][0]
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    margin = DEVIATION_MARGIN
    if game.phase == "draw" and DRAW_DEVIATION_MARGIN is not None:
        margin = DRAW_DEVIATION_MARGIN
    if best != 0 and (totals[best] - totals[0]) / weights < margin:
        best = 0
    return candidates[best][0]


def candidate_values(view: dict[str, Any], candidates: list[Action], rng: random.Random, *,
                     worlds: int, params: Params | None = None, record: Record | None = None) -> list[float]:
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
    player = RolloutPlayer(ROLLOUT_PARAMS if params is None else params, seat % 2)
    for _ in range(worlds):
        world = _deal(view, rng, memory)
        weight = 1.0 if memory is None else memory.weight(world)
        weights += weight
        seed = rng.getrandbits(32)
        for i, action in enumerate(candidates):
            sample = world.copy() if i < len(candidates) - 1 else world
            totals[i] += weight * _rollout(sample, seat, [action], random.Random(seed), player)
    return [t / weights for t in totals]


def _baseline(params: Params | None, pile_judge: PileJudge | None,
              record: Record | None) -> tuple[Params, PileJudge | None]:
    """The weights (and pile judge) of the choice that stands: medio's, as `choose_action`
    plays it; without the record (nothing guards a pile passed back and forth) or without a
    judge, medio's fallback that takes a lone card only when it pays."""
    params = BASELINE_PARAMS if params is None else params
    if params.take_on_copy and (pile_judge is None or record is None):
        return MEDIO_WITHOUT_RECORD, None
    return params, pile_judge


def _known_to_next(view: dict[str, Any], memory: Memory | None, params: Params) -> list[Card]:
    """What the next player is known to hold, where the weights read the record (as medio)."""
    if not params.reads_record or memory is None:
        return []
    return list(memory.known.get((view["seat"] + 1) % view["players"], []))


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
    return [plan[0] for plan in _plans(game, seat, params)]


def _plans(game: Game, seat: int, params: Params, pile_judge: PileJudge | None = None,
           rng: random.Random | None = None, known: list[Card] | None = None) -> list[Plan]:
    """The plans worth comparing, each starting with a different action; the greedy player's own
    choice comes first (ties keep it). A draw or a discard is a plan of one action (the look-ahead
    plays on); a meld or a lay-off is the rest of the turn (:func:`turn_plan`). `pile_judge`,
    `rng` and `known` go to the greedy player's draw and discard as `choose_action` gives them."""
    known = known or []
    if params.take_on_copy and pile_judge is None:
        params = dataclasses.replace(params, take_on_copy=False)
    if game.phase == "draw":
        greedy = draw_action(game, seat, params, known, rng, pile_judge)
        if not game.discard_pile or not game.stock or not DRAW_LOOKAHEAD:
            return [[greedy]]
        other = {"type": "take_discards"} if greedy["type"] == "draw" else {"type": "draw"}
        return [[greedy], [other]]
    line = finishing_line(game, seat, params)  # the pozzetto or a winning close this turn
    if line:
        return [[line[0]]]
    play = best_play(game, seat, params)
    if play is not None:
        if not (PLAN_KEEP_WILDS and any(c.is_wild for c in game.hands[seat])):
            return [[play]]
        greedy_plan = turn_plan(game, seat, params)
        held = turn_plan(game, seat, params, keep_wilds=True)
        if held and held[0] != greedy_plan[0]:
            return [greedy_plan, held]
        return [[play]]
    return [[action] for action in _discard_candidates(game, seat, params, known)]


def turn_plan(game: Game, seat: int, params: Params = DEFAULT, *, keep_wilds: bool = False) -> Plan:
    """The rest of `seat`'s turn as the greedy player plays it (its plays, then its discard),
    tried on a copy of `game`. With `keep_wilds` its plays are chosen as if the wilds were not in
    hand, so they stay there (no dirty meld, no wild laid off), unless its turn search finds the
    pozzetto or a close, which it takes.

    It reads only the seat's hand and the table, so the plan is the same in every sampled world;
    it stops where the pozzetto is taken (the cards that come next are not known) or the hand
    ends, and the look-ahead plays on from there."""
    g = game.copy()
    side = seat % 2
    pozzetto = g.pozzetto_state[side]
    plan: Plan = []
    for _ in range(MAX_PLAN_ACTIONS):
        if g.hand_over or g.phase != "play" or g.to_move != seat or g.pozzetto_state[side] != pozzetto:
            break
        if keep_wilds:
            line = finishing_line(g, seat, params)
            if line:
                action = line[0]
            else:
                action = best_play(_without_wilds(g, seat), seat, params) or discard_action(g, seat, params)
        else:
            action = greedy_action(g, seat, None, params)
        try:
            g.apply(seat, action)
        except IllegalMove:  # a play chosen without the wilds that the full hand may not make
            if action["type"] == "discard":
                break
            action = discard_action(g, seat, params)
            g.apply(seat, action)
        plan.append(action)
        if action["type"] == "discard":
            break
    return plan


def _without_wilds(game: Game, seat: int) -> Game:
    """A copy of `game` in which `seat` holds only its natural cards (for choosing plays that
    spend no wild; a 2 counts as a wild here even where it could stand as itself)."""
    g = game.copy()
    g.hands[seat] = [c for c in g.hands[seat] if not c.is_wild]
    return g


def _discard_candidates(game: Game, seat: int, params: Params, known: list[Card] | None = None) -> list[Action]:
    """Medio's discard first, then the best of the others by its reckoning (no wild, nothing
    that feeds the other side while something safe is left, and never a card that completes
    one of their burraco while another is left: `strategy.no_gift`)."""
    legal = no_gift(game, seat, [a["card"] for a in game.legal_actions(seat, kinds=("discard",))])
    scores = discard_scores(game, seat, legal, params, known or ())
    ranked = sorted(legal, key=lambda t: (scores[t], t))
    # Never a wild (scored 1000+) unless nothing else is left.
    ranked = [t for t in ranked if scores[t] < 900] or ranked
    if SAFE_DISCARDS:
        # A card that lays off on the other side's melds is thrown only when every other is.
        ranked = [t for t in ranked if not _feeds(game, seat, t)] or ranked
    # The greedy player's own discard first, as it would throw it (its last-card rules included:
    # a lone wild that no meld can take is thrown), unless it feeds them and a safe one is left
    # (only where medio's discard does not stand: MEDIO_DISCARD_FIRST).
    greedy = discard_action(game, seat, params, known or ())["card"]  # never a gift either while one is left
    if greedy in ranked:
        ranked.remove(greedy)
        ranked.insert(0, greedy)
    elif MEDIO_DISCARD_FIRST or not (SAFE_DISCARDS and _feeds(game, seat, greedy)
                                     and not _feeds(game, seat, ranked[0])):
        ranked.insert(0, greedy)
    return [{"type": "discard", "card": t} for t in ranked[:MAX_DISCARD_CANDIDATES]]


def _feeds(game: Game, seat: int, text: str) -> bool:
    return opponents_can_take(game, seat, Card.parse(text))[0]


class RolloutPlayer:
    """Every seat of the look-ahead: the greedy player, except that the other side also takes a
    short pile that goes down at once (:data:`OPPONENT_TAKES_USABLE`), with the turn search
    (`strategy.finishing_line`) remembered for the decision.

    ``side`` is the deciding seat's side. That search costs most of a rollout (about 60 % of a
    decision's time, cProfile), and the same position recurs: the candidates of a world share
    their dice, so a seat that draws the same card holds the same hand. Its result depends only
    on the seat's side, its hand (in order), its side's melds, whether the side's pozzetto is
    still there, the card just taken (the last card may not be it) and the rules, which is the
    key; it is skipped where it surely finds nothing (:func:`hopeless`); the greedy player
    itself is then asked with the search switched off (`finish_hand` below any hand), so its
    choices are exactly the greedy player's.
    """

    def __init__(self, params: Params = DEFAULT, side: int | None = None, *,
                 opponent_takes_usable: int | None = None) -> None:
        self.params = params
        self.side = side  # the deciding side (a player for the other side may differ)
        self.usable = OPPONENT_TAKES_USABLE if opponent_takes_usable is None else opponent_takes_usable
        self.plain = dataclasses.replace(params, finish_hand=-1)
        self.lines: dict[tuple[Any, ...], list[Action] | None] = {}

    def action(self, game: Game, seat: int, rng: random.Random) -> Action:
        if game.phase == "draw":
            action = draw_action(game, seat, self.params)
            if (action["type"] == "draw" and self.side is not None
                    and (seat % 2 != self.side or OWN_TAKES_USABLE)
                    and 0 < len(game.discard_pile) <= self.usable and pile_goes_down(game, seat)):
                return {"type": "take_discards"}
            return action
        hand = game.hands[seat]
        if len(hand) <= self.params.finish_hand:
            side = seat % 2
            key = (side, tuple(hand), tuple(game.table[side]), game.pozzetto_state[side], game.picked)
            try:
                line = self.lines[key]
            except KeyError:
                line = None if hopeless(game, seat) else finishing_line(game, seat, self.params)
                self.lines[key] = line
            if line:
                return line[0]
        return greedy_action(game, seat, rng, self.plain)


def pile_goes_down(game: Game, seat: int) -> bool:
    """Every card of the discard pile could be played at once by `seat`: laid off on its side's
    melds (each on a meld that takes it as it stands) or melded with two cards of its hand."""
    side = seat % 2
    hand = game.hands[seat]
    table = game.table[side]
    for c in game.discard_pile:
        if any(m.could_take(c) and _lays_off(m, c, game) for m in table):
            continue
        if not any(meld for meld in candidate_melds(hand + [c], game, side, allow_dirty=True)
                   if c in meld.cards):
            return False
    return True


def _lays_off(meld: Meld, card: Card, game: Game) -> bool:
    try:
        lay_off(meld, [card], game.ruleset)
    except IllegalMove:
        return False
    return True


class OutOfTime(Exception):
    """A look-ahead passed the decision's wall-clock deadline."""


def _rollout(game: Game, seat: int, plan: Plan, rng: random.Random, player: RolloutPlayer,
             deadline: float | None = None) -> float:
    """Play `plan` for `seat`, then the look-ahead, and value the end for `seat`'s side.

    Past `deadline` (a `time.perf_counter` reading) it raises :class:`OutOfTime` before its next
    move: on a machine busy enough to deschedule the thread, one look-ahead can take longer than
    the rest of the decision, and the cap between worlds alone let decisions run to 1.7 s."""
    side = seat % 2
    for action in plan:
        if game.hand_over:
            break
        game.apply(seat, action)
    turns_left = HORIZON_TURNS  # turn ends after the plan's
    steps = 0
    while not game.hand_over and turns_left > 0 and steps < 200:
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfTime
        mover = game.to_move
        act = player.action(game, mover, rng)
        game.apply(mover, act)
        if act["type"] == "discard":
            turns_left -= 1
        steps += 1
    return _evaluate(game, side)


def _evaluate(game: Game, side: int) -> float:
    """Score difference as if the hand ended now, plus what the hands promise
    (:func:`promise`, when :data:`PROMISE_LEAF` is on; else the cards in hand at half)."""
    score = game.score()
    value = score[side]["total"] - score[1 - side]["total"]
    if game.hand_over:
        return value
    if PROMISE_LEAF:
        return value + promise(game, side) - promise(game, 1 - side)
    # Cards in hand are not lost yet: count them at half (they may still be melded), unless
    # the other side may close soon (CLOSE_RISK_LEAF): then they are as good as lost.
    for seat in range(game.players):
        if CLOSE_RISK_LEAF and opponent_threat(game, seat):
            continue
        in_hand = sum(c.points for c in game.hands[seat])
        value += (in_hand / 2) * (1 if seat % 2 == side else -1)
    return value


# On, a seat's cards in hand count nothing at the leaf while the other side threatens to close
# (`strategy.opponent_threat`), instead of half. Off: no gain shown (issue 31, session 8: against
# the sparring partner, 8 worlds, seed 41, 40 duplicate hands, +82.2 [-30.6, 195.1] a hand with it,
# +76.5 without; on the same pairs +5.8 [-41.9, 53.4]).
CLOSE_RISK_LEAF = False


# Off: measured weaker. On the same 120 duplicate hands (seed 1301, 16 worlds, with the opponent
# and SAFE_DISCARDS) the leaf below gave 63.3 %, +117.1 a hand; the plain leaf 65.0 %, +165.0
# (per pair +47.8 [-37.0, 132.7] for the plain one): within the noise, but no gain to keep.
PROMISE_LEAF = False
NEAR_BURRACO = {5: (25.0, 12.0), 6: (60.0, 30.0)}  # a meld of 5 or 6 cards: (clean, dirty)
WILD_HELD = 8.0  # a wild in hand is worth this (its points do not count against the side)
POZZETTO_CHANCE = (0.8, 0.8, 0.6, 0.45, 0.3, 0.2, 0.1)  # by the side's shortest hand (0..6 cards)
CLOSE_CHANCE = (0.7, 0.7, 0.5, 0.3)  # pozzetto taken and a burraco down, by the shortest hand


def promise(game: Game, side: int) -> float:
    """What `side`'s position is worth beyond the score as it stands, in points: cards in hand
    at half their points (they may still be melded), a wild held as an asset (:data:`WILD_HELD`),
    melds of 5 and 6 cards on their way to a burraco (clean ones more), the pozzetto a short
    hand is about to take (its 100 penalty, by a chance that grows as the hand shrinks), and a
    close it threatens (the closing bonus, and the other side's cards then counting in full,
    not at half).
    The chances are rough guesses of a few turns' play, not measured frequencies."""
    seats = range(side, game.players, 2)
    value = 0.0
    shortest = min(len(game.hands[s]) for s in seats)
    for s in seats:
        for c in game.hands[s]:
            value += c.points + WILD_HELD if c.is_wild else c.points / 2
    for meld in game.table[side]:
        if meld.burraco is None and len(meld.cards) in NEAR_BURRACO:
            clean, dirty = NEAR_BURRACO[len(meld.cards)]
            value += clean if meld.wild is None else dirty
    if game.pozzetto_state[side] == "available":
        if shortest < len(POZZETTO_CHANCE):
            value += 100 * POZZETTO_CHANCE[shortest]
    elif shortest < len(CLOSE_CHANCE) and game.has_burraco(side):  # one to close with (Reale: clean)
        others = sum(c.points for s in range(1 - side, game.players, 2) for c in game.hands[s])
        value += CLOSE_CHANCE[shortest] * (100 + others / 2)
    return value
