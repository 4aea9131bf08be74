"""The greedy player ("medio") and the pieces the expert reuses.

Every function here takes an engine `Game` and a seat and reads only what that seat may see:
its own hand, the melds on the table, the discard pile, and counts. The game given is the
determinized one built from the seat's view (see `knowledge.determinize`), or, inside the
expert's look-ahead, a sampled game in which each simulated seat again reads only its own hand.

The greedy player, one action at a time:
- draw: takes the discard pile when what it adds to the hand is worth more than the cards it
  brings (a wild, a new meld, a lay-off, or simply a big pile early on), else the stock; medio
  (`MEDIO`, issue 31) instead plays its turn on a copy after the pile and after a stock card
  (the sparring partner's rule, `Params.take_on_copy`), counts what the pile would bring the
  other side if left, and takes nearly every pile that does not cost it;
- play: lays off natural cards, opens clean melds (longest first), uses a wild only where it
  pays (a burraco, the race to the pozzetto, a spare wild), never spoils a clean burraco;
- discard: the card worth least to itself and least useful to the opponents (it would lay off
  on their melds, it is near what they collect; for medio, what it makes of the pile for
  whoever takes it next, `pile_feed_cost`), shedding points when it can.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from games.engine import Card, Game, IllegalMove, Meld, check_meld, lay_off

Action = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Params:
    """Tunable weights of the greedy player (the expert uses a sharper set)."""

    take_pile_min_gain: float = 20.0  # take the pile when its estimated gain exceeds this
    pile_card_cost: float = 3.0  # burden of each pile card taken (early in the hand)
    pile_card_cost_late: float = 6.0
    pile_card_cost_closing: float = 9.0
    pile_card_cost_building: float = -2.0
    wild_in_pile: float = 25.0
    dirty_meld_cost: float = 12.0
    danger_lay_off: float = 30.0
    danger_burraco: float = 300.0
    keep_pair: float = 11.0
    keep_near1: float = 9.0
    keep_near2: float = 5.0
    shed_points: float = 0.35
    pile_same_rank: float = 6.0  # a discard pairing a rank in the pile makes the pile a set for the taker
    pile_near1: float = 0.0  # ... or a run: a pile card of its suit one place away
    pile_near2: float = 0.0  # ... two places away
    race_hand: int = 6  # before the pozzetto, spend wilds once the hand is this short (8 before the 9-card search)
    early_draws: int = 18  # the first cards drawn from the stock: no dirty 3-card meld unless racing
    lone_wild_hand: int = 4  # after the pozzetto, a hand this short lays its wild off first
    finish_hand: int = 9  # search the turn for the pozzetto or a close when the hand is this short
    finish_nodes: int = 100  # positions the search may visit (100 found 251 of the 252 lines 3,000 found)
    sequence_bonus: float = 6.0
    threat_hand: int = 4  # the others may close soon: pozzetto, a burraco and this many cards or fewer
    # hand_value, the worth of a hand that weighs the pile against the stock:
    value_lay_off: float = 6.0  # each natural it lays off, beyond its points
    value_meld_card: float = 6.0  # each card of a clean meld it opens, beyond the meld's points
    value_wild: float = 22.0  # each wild it holds
    value_pair: float = 4.0  # each further card of a rank
    value_near1: float = 4.0  # two naturals of a suit one place apart
    value_near2: float = 2.0  # ... two places apart
    # best_play, the worth of each meld or lay-off (the best is played, if any):
    play_lay_off: float = 50.0  # a natural laid off
    play_chain_card: float = 8.0  # each card of several laid together on an own run
    play_wild_lay_off: float = 25.0  # a wild laid off while racing or with wilds to spare
    play_meld: float = 20.0  # a new meld ...
    play_meld_card: float = 8.0  # ... and each of its cards
    play_burraco: float = 150.0  # a play that completes a burraco
    play_diretta: float = 80.0  # a play that empties the hand before the pozzetto
    # Playing for points (issue 31): the pile is worth taking, and worth not feeding.
    pile_left_to_them: float = 0.0  # what the pile would bring the other side, if left, counts for taking it
    pile_feed: float = 0.0  # a discard costs this share of what it adds to the pile for the other side
    lone_card_must_pay: bool = False  # a one-card pile only when it pays this turn (`lone_card_pays`)
    # Given the public record, count the cards the next player is known to hold (taken from the
    # pile, not shown since) in what the pile is worth to them (`pile_worth_to`). Measured off:
    # with the copy judgement, seed 11, 200 duplicate hands: -16.9 [-81.5, 47.6] a hand against
    # -12.8 [-74.9, 49.4] without.
    reads_record: bool = False
    # Judge the pile as the sparring partner does (`sparring.draw_choice`): this turn played out
    # on a copy after taking it and after a few stock cards, the pile taken unless it ends
    # `sparring.SparringParams.take_margin` worse.
    take_on_copy: bool = False
    copy_stock_samples: int = 2  # ... and this many stock cards tried (3: CPU p99 21 ms, over 20)


DEFAULT = Params()  # the cautious weights: esperto's candidates and look-ahead
# Medio plays for points (issue 31): it takes nearly every pile that pays, counts what a pile
# left behind brings the other side, and judges a discard by what the pile becomes. Against the
# sparring partner (200 duplicate hands, seed 11) it took 56 piles a hand and lost -52 [-120, 16]
# a hand, where DEFAULT took 5 and lost -269 [-358, -180]. Two such players pass a lone card
# through the pile back and forth: with the hand's public record `stall.ping_pong` ends that
# (`games.bots.choose_action`); a caller that keeps no record gets MEDIO_WITHOUT_RECORD, which
# takes a one-card pile only when it pays at once (`lone_card_pays`) and so ends it from the view
# alone. That costs points (seed 11: -189 [-266, -112] a hand, 5 piles), so it is the fallback.
PLAYS_FOR_POINTS = Params(take_pile_min_gain=-30.0, pile_left_to_them=1.0, pile_feed=1.0)
# The pile judged by playing the turn on a copy, as the sparring partner does (issue 31, third
# session): against it, seed 11, 200 duplicate hands, +87.7 [45.1, 130.2] a hand where
# PLAYS_FOR_POINTS scored -52.0 [-120.3, 16.3]; the burraco a hand even (0.88 / 0.89 against
# 0.72 / 1.23): the pile it now takes in the last turns is what the other side built them with.
MEDIO = dataclasses.replace(PLAYS_FOR_POINTS, take_on_copy=True)  # the level "medio"
# Without the record, medio's earlier pile rule (its loops were shown to end from the view).
MEDIO_WITHOUT_RECORD = dataclasses.replace(MEDIO, lone_card_must_pay=True, take_on_copy=False)
MULTI_LAY_OFF_HAND = 5  # the turn search tries every group of cards on a meld from hands this short


# ----------------------------------------------------------------------------- reading


def side_of(seat: int) -> int:
    return seat % 2


def opponents_can_take(g: Game, seat: int, card: Card) -> tuple[bool, bool]:
    """Would `card` lay off on an opponent meld; would it complete their burraco?"""
    fits = burraco = False
    for meld in g.table[1 - side_of(seat)]:
        if not meld.could_take(card):
            continue
        try:
            new = lay_off(meld, [card], g.ruleset)
        except IllegalMove:
            continue
        fits = True
        if new.burraco and not meld.burraco:
            burraco = True
    return fits, burraco


def _positions(cards: Iterable[Card]) -> dict[str, dict[int, Card]]:
    """Per suit, the sequence positions the naturals can stand at (ace at 1 and 14)."""
    out: dict[str, dict[int, Card]] = {}
    for c in cards:
        if c.rank == 0:
            continue
        pos = out.setdefault(c.suit, {})
        if c.rank == 1:
            pos[1] = c
            pos[14] = c
        else:
            pos.setdefault(c.rank, c)
    return out


def candidate_melds(hand: list[Card], g: Game, side: int, allow_dirty: bool) -> list[Meld]:
    """New melds the hand can open: all-natural sets and runs (longest), and, if allowed, those
    a single wild completes. Checked by the engine's own `check_meld`."""
    ruleset = g.ruleset
    set_ranks = {m.low for m in g.table[side] if m.kind == "set"}
    wilds = sorted((c for c in hand if c.is_wild), key=lambda c: (c.rank == 0, c.suit))
    by_rank: dict[int, list[Card]] = {}
    for c in hand:
        if not c.is_wild:
            by_rank.setdefault(c.rank, []).append(c)
    raw: list[list[Card]] = []
    for rank, same in by_rank.items():
        if rank in set_ranks:
            continue
        if len(same) >= 3:
            raw.append(list(same))
        elif len(same) == 2 and allow_dirty and wilds:
            raw.append(same + [wilds[0]])
    # Naturals for runs: 2s of the suit count as natural only in their own place.
    naturals = [c for c in hand if c.rank != 0]
    for suit, pos in _positions(naturals).items():
        present = sorted(pos)
        runs: list[list[int]] = []
        run: list[int] = []
        for p in present:
            if run and p == run[-1] + 1:
                run.append(p)
            else:
                if run:
                    runs.append(run)
                run = [p]
        if run:
            runs.append(run)
        for r in runs:
            if len(r) >= 3:
                seq = [pos[p] for p in r]
                if r[0] == 1 and r[-1] == 14:
                    continue
                raw.append(seq)
        if not (allow_dirty and wilds):
            continue
        other_wilds = [w for w in wilds if not (w.rank == 2 and w.suit == suit)] or wilds
        wild = other_wilds[0]
        for i, r in enumerate(runs):
            # Two runs one position apart, joined by the wild.
            if i + 1 < len(runs) and runs[i + 1][0] == r[-1] + 2:
                joined = [pos[p] for p in r] + [wild] + [pos[p] for p in runs[i + 1]]
                if len(joined) >= 3:
                    raw.append(joined)
            if len(r) == 2:
                raw.append([pos[p] for p in r] + [wild])
    out: list[Meld] = []
    seen: set[tuple[str, ...]] = set()
    for cards in raw:
        if not _counts_ok(cards, hand):
            continue
        try:
            meld = check_meld(cards, ruleset)
        except IllegalMove:
            continue
        key = tuple(c.text for c in meld.cards)
        if key in seen:
            continue
        seen.add(key)
        out.append(meld)
    return out


def _counts_ok(cards: list[Card], hand: list[Card]) -> bool:
    need: dict[str, int] = {}
    for c in cards:
        need[c.text] = need.get(c.text, 0) + 1
    have: dict[str, int] = {}
    for c in hand:
        have[c.text] = have.get(c.text, 0) + 1
    return all(have.get(t, 0) >= k for t, k in need.items())


def _rest(hand: list[Card], cards: Iterable[Card]) -> list[Card] | None:
    rest = list(hand)
    for c in cards:
        try:
            rest.remove(c)
        except ValueError:
            return None
    return rest


def extension(hand: list[Card], meld: Meld) -> list[Card]:
    """The hand's naturals that continue a run without a gap, below it and above it."""
    pos = _positions([c for c in hand if not c.is_wild or c.suit == meld.suit]).get(meld.suit, {})
    chain: list[Card] = []
    p = meld.low - 1
    while p >= 1 and p in pos:
        chain.append(pos[p])
        p -= 1
    p = meld.high + 1
    while p <= 14 and p in pos:
        if pos[p] in chain:  # an ace cannot stand at both ends
            break
        chain.append(pos[p])
        p += 1
    return chain


# The clean burraco a wild would spoil: pulito, and Burraco Reale's nobile and reale (RULES §15).
CLEAN_BURRACO = ("pulito", "nobile", "reale")


def wild_has_home(table: list[Meld], wild: Card, ruleset: Any) -> bool:
    """Could `wild` be laid off on one of `table`'s melds (not spoiling a clean burraco)?"""
    for meld in table:
        if meld.burraco in CLEAN_BURRACO or not meld.could_take(wild):
            continue
        try:
            lay_off(meld, [wild], ruleset)
        except IllegalMove:
            continue
        return True
    return False


def play_allowed(g: Game, seat: int, rest: list[Card], burraco_after: bool) -> bool:
    """The engine's own check of what a meld or lay-off leaves in hand."""
    try:
        g.outcome_of_play(seat, rest, burraco_after)  # the engine's rule, not a copy of it
    except IllegalMove:
        return False
    return True


# ----------------------------------------------------------------------------- draw


def hand_value(cards: list[Card], g: Game, side: int, params: Params = DEFAULT) -> float:
    """A quick worth of a hand: what it could lay off and meld now, wilds, and near-melds."""
    value = 0.0
    remaining = list(cards)
    table = list(g.table[side])
    # Lay-offs of naturals (repeat: a run grows card by card).
    changed = True
    while changed:
        changed = False
        for c in list(remaining):
            if c.is_wild:
                continue
            for i, meld in enumerate(table):
                if meld.could_take(c):
                    try:
                        table[i] = lay_off(meld, [c], g.ruleset)
                    except IllegalMove:
                        continue
                    remaining.remove(c)
                    value += c.points + params.value_lay_off
                    changed = True
                    break
    melds = candidate_melds(remaining, g, side, allow_dirty=False)
    used: list[Card] = []
    for meld in sorted(melds, key=lambda m: -len(m.cards)):
        rest = _rest(remaining, meld.cards)
        if rest is None:
            continue
        remaining = rest
        used.extend(meld.cards)
        value += meld.points + params.value_meld_card * len(meld.cards)
    value += params.value_wild * sum(1 for c in remaining if c.is_wild)
    value += structure(remaining, params)
    return value


def structure(cards: list[Card], params: Params = DEFAULT) -> float:
    """Pairs and near neighbours in a suit: the makings of melds."""
    value = 0.0
    by_rank: dict[int, int] = {}
    pos = _positions([c for c in cards if not c.is_wild])
    for c in cards:
        if not c.is_wild:
            by_rank[c.rank] = by_rank.get(c.rank, 0) + 1
    for k in by_rank.values():
        if k >= 2:
            value += params.value_pair * (k - 1)
    for p in pos.values():
        ps = sorted(set(p))
        for a, b in zip(ps, ps[1:], strict=False):
            if b - a == 1:
                value += params.value_near1
            elif b - a == 2:
                value += params.value_near2
    return value


def pile_finishes(g: Game, seat: int, params: Params = DEFAULT) -> bool:
    """Would the pile let this turn take the pozzetto (before it) or close (after it, with a
    burraco)? A certain finish beats a stock card: the gain of a hand of one card and a pile of
    one that lays off is small, so the weighing below drew and waited on, turn after turn."""
    side = side_of(seat)
    if g.pozzetto_state[side] != "available" and not g.has_burraco(side):
        return False
    if len(g.hands[seat]) + len(g.discard_pile) > params.finish_hand:
        return False
    taken = g.copy()
    taken.apply(seat, {"type": "take_discards"})
    return finishing_line(taken, seat, params) is not None


def pile_brings_burraco(g: Game, seat: int, params: Params = DEFAULT) -> bool:
    """Without a burraco (so unable to close): would taking the pile let this turn's own plays
    (the turn search, then the greedy plays) lay one down? Weighed by its points, a long pile
    that completes a burraco was often left while the others closed (17 draws in main's lost
    hands of seed 1301 after the pozzetto, 8 before it; taking it before the pozzetto too
    measured no worse)."""
    side = side_of(seat)
    if g.has_burraco(side) or not g.discard_pile:
        return False
    if not _burraco_in_reach(g.hands[seat] + g.discard_pile, g.table[side]):
        return False
    taken = g.copy()
    taken.apply(seat, {"type": "take_discards"})
    for _ in range(len(taken.hands[seat])):
        line = finishing_line(taken, seat, params)
        play = line[0] if line else best_play(taken, seat, params)
        if play is None or play["type"] == "discard":
            break
        taken.apply(seat, play)
        if taken.has_burraco(side):
            return True
        if taken.hand_over:
            break
    return False


def _burraco_in_reach(cards: list[Card], table: list[Meld]) -> bool:
    """A quick necessary test: some meld of ours, or a new one, could reach seven cards with
    these (the naturals of its rank or suit, and one wild)."""
    wild = any(c.is_wild for c in cards)
    for meld in table:
        same = [c for c in cards if not c.is_wild
                and (c.rank == meld.low if meld.kind == "set" else c.suit == meld.suit)]
        if len(meld.cards) + len(same) + (wild and meld.wild is None) >= 7:
            return True
    by_rank: dict[int, int] = {}
    by_suit: dict[str, int] = {}
    for c in cards:
        if not c.is_wild:
            by_rank[c.rank] = by_rank.get(c.rank, 0) + 1
            by_suit[c.suit] = by_suit.get(c.suit, 0) + 1
    return max([*by_rank.values(), *by_suit.values(), 0]) + wild >= 7


def pile_worth_to(g: Game, side: int, pile: list[Card], params: Params = DEFAULT,
                  known: Sequence[Card] = ()) -> float:
    """What `pile` would bring `side` if it took it: the points it lays off on the side's melds
    or melds by itself, its wilds, the pairs and neighbours it adds (`hand_value`), less a
    little per card carried. Its hand is not seen: only the cards `known` to be in it (taken
    from the pile and not played since, read from the public record: `knowledge.memory_of`)
    count, as what the pile adds to them.

    >>> from games.engine import Ruleset, parse_cards
    >>> g = Game.setup(Ruleset.preset("classico"), hands=["KH 4C", "5S 6S 7S"], stock="AS",
    ...                discard="9D", to_move=0)
    >>> pile_worth_to(g, 1, [Card.parse("KH")]), pile_worth_to(g, 1, [Card.parse("KH")], known=parse_cards("KC KD"))
    (-2.0, 42.0)
    """
    if not pile:
        return 0.0
    if known:
        held = list(known)
        return (hand_value(held + list(pile), g, side, params) - hand_value(held, g, side, params)
                - 2.0 * len(pile))
    return hand_value(list(pile), g, side, params) - 2.0 * len(pile)


def lone_card_pays(g: Game, seat: int, params: Params = DEFAULT) -> bool:
    """Is a pile of one card worth taking this turn: a meld or a lay-off follows, or the hand it
    leaves after the discard is worth more (`hand_value`) than the hand now? When the pile
    passes back and forth with nothing drawn or laid down, each side takes the single card the
    other threw (the pile is never longer), the tables stay as they are and so does the worth
    of the others' hands to them; a player whose hand must gain at each such take can take only
    finitely many, so it ends the loop from its view alone, record or none (issue 31: two
    players taking every pile passed it for ever). The turn after the take is the greedy
    player's own (`finishing_line`, `best_play`, `discard_action`), which reads only the seat's
    hand, the table and the pile, so the play and the discard found here are the ones it makes.

    >>> from games.engine import Ruleset
    >>> deal = dict(hands=["7H 8H KD 4C", "5S 5D QS"], stock="QC TS 4S 5C 6C", to_move=0)
    >>> [lone_card_pays(Game.setup(Ruleset.preset("classico"), discard=d, **deal), 0)
    ...  for d in ("9H", "KS", "JS")]  # a run to meld; a pair of kings; nothing
    [True, True, False]
    """
    taken = g.copy()
    taken.apply(seat, {"type": "take_discards"})
    if finishing_line(taken, seat, params) is not None or best_play(taken, seat, params) is not None:
        return True
    thrown = discard_action(taken, seat, params)["card"]
    rest = _rest(taken.hands[seat], [Card.parse(thrown)])
    side = side_of(seat)
    return rest is not None and hand_value(rest, g, side, params) > hand_value(g.hands[seat], g, side, params)


def pile_feed_cost(g: Game, seat: int, card: Card, params: Params = MEDIO, *,
                   pile_now: float | None = None, known: Sequence[Card] = ()) -> float:
    """What discarding `card` costs through the pile: whoever takes the pile next gets the card
    with it, so the discard is judged by what the pile becomes for the other side (its worth
    with the card less its worth now, `pile_worth_to`, at `params.pile_feed`). Read from the pile
    and the other side's melds, which everybody sees. medio's discard (`discard_scores`) and the
    post-game review (`games.services.history.analysis`) share it.

    >>> from games.engine import Ruleset
    >>> g = Game.setup(Ruleset.preset("classico"), hands=["KH 4C", "5S 6S 7S"], stock="AS",
    ...                discard="KC KD 9H 3D", to_move=0)
    >>> pile_feed_cost(g, 0, Card.parse("KH")) > 30.0, pile_feed_cost(g, 0, Card.parse("4C"))
    (True, 0.0)
    """
    if not params.pile_feed:
        return 0.0
    other = 1 - side_of(seat)
    if pile_now is None:
        pile_now = pile_worth_to(g, other, g.discard_pile, params, known)
    return params.pile_feed * max(0.0, pile_worth_to(g, other, [*g.discard_pile, card], params, known) - pile_now)


# Judges the pile for `Params.take_on_copy` (game, seat, rng, stock cards to try, known cards):
# the sparring partner's turn on a copy (`sparring.copy_pile_judge`), which its callers give,
# since the sparring partner builds on this module.
PileJudge = Callable[[Game, int, random.Random, int, Sequence[Card]], Action]


def draw_action(g: Game, seat: int, params: Params = DEFAULT, known: Sequence[Card] = (),
                rng: random.Random | None = None, pile_judge: PileJudge | None = None) -> Action:
    """The stock or the pile; `known`: cards the other side is known to hold (`pile_worth_to`);
    `pile_judge`: needed by `params.take_on_copy`."""
    pile = g.discard_pile
    if not pile:
        return {"type": "draw"}
    if not g.stock:
        return {"type": "take_discards"}
    side = side_of(seat)
    hand = g.hands[seat]
    if pile_finishes(g, seat, params) or pile_brings_burraco(g, seat, params):
        return {"type": "take_discards"}
    if params.lone_card_must_pay and len(pile) == 1 and not lone_card_pays(g, seat, params):
        return {"type": "draw"}
    if params.take_on_copy:
        # The turn played out on a copy says what the pile is worth (issue 31). Before the
        # short-hand rule below: that rule left the sparring partner every pile of the last
        # turns (seed 11, 200 duplicate hands: -12.8 a hand with it, +87.7 without).
        if pile_judge is None:
            raise ValueError("Params.take_on_copy needs a pile_judge (games.bots.sparring.copy_pile_judge)")
        return pile_judge(g, seat, rng or random.Random(), params.copy_stock_samples, known)
    if g.pozzetto_state[side] != "available" and len(hand) <= 3:
        # A short hand after the pozzetto: a pile that allows no legal play (a set that would
        # leave one card without a burraco) is only a card to throw back. Two sides doing that
        # with a six each never drew from the stock again.
        taken = g.copy()
        taken.apply(seat, {"type": "take_discards"})
        if next(taken.legal_actions(seat, kinds=("lay_off", "meld")), None) is None:
            return {"type": "draw"}
    before = hand_value(hand, g, side, params)
    after = hand_value(hand + pile, g, side, params)
    gain = after - before
    # Cards that do not meld at once are a burden: a longer way to the pozzetto, and points lost
    # if the hand ends (more so late in the hand). The stock card is worth a little on average.
    stock_left = len(g.stock)
    per_card = params.pile_card_cost if stock_left > 20 else params.pile_card_cost_late
    closing = g.pozzetto_state[side] != "available" and g.has_burraco(side)
    if closing or opponent_threat(g, seat, params):
        per_card = params.pile_card_cost_closing  # heading for the close, or the others are
    elif g.pozzetto_state[side] != "available":
        per_card = params.pile_card_cost_building  # pozzetto in hand, no burraco yet: cards are fuel
    gain -= per_card * len(pile)
    pile_wilds = sum(1 for c in pile if c.is_wild)
    if g.pozzetto_state[side] != "available" and len(hand) <= 3:
        # Down to a few cards after the pozzetto a wild is no gain: it cannot close the hand
        # (nor be left alone), it must first find a meld. Two sides passing lone wilds through
        # the pile would never end the hand.
        gain -= 22 * pile_wilds
    else:
        gain += params.wild_in_pile * pile_wilds
    if params.pile_left_to_them:
        # Left behind, the pile goes to the other side with a card of ours on top.
        gain += params.pile_left_to_them * max(0.0, pile_worth_to(g, 1 - side, pile, params, known))
    return {"type": "take_discards"} if gain > params.take_pile_min_gain else {"type": "draw"}


# ----------------------------------------------------------------------------- play


def early(g: Game, params: Params = DEFAULT) -> bool:
    """Still among the first `early_draws` cards of the stock (more than 45 left of the 63 dealt
    with 2 players, 23 of 41 with 4; Burraco Reale deals 4 cards fewer)."""
    # The deck less the hands, the pozzetti and the first discard.
    initial = len(g.ruleset.deck()) - 11 * g.players - 22 - 1
    return len(g.stock) > initial - params.early_draws


def opponent_threat(g: Game, seat: int, params: Params = DEFAULT) -> bool:
    """The other side could close soon: pozzetto taken, a burraco down, few cards in hand."""
    other = 1 - side_of(seat)
    if g.pozzetto_state[other] == "available" or not g.has_burraco(other):
        return False
    return min(len(g.hands[s]) for s in range(other, g.players, 2)) <= params.threat_hand


def best_play(g: Game, seat: int, params: Params = DEFAULT) -> Action | None:
    """The best meld or lay-off now, or None when the greedy player would rather discard."""
    side = side_of(seat)
    hand = g.hands[seat]
    table = g.table[side]
    ruleset = g.ruleset
    side_burraco = g.has_burraco(side)  # one that lets the side close (in Reale a clean one)
    closes_with = ruleset.closes_with
    pozzetto_taken = g.pozzetto_state[side] != "available"
    n = len(hand)
    wild_count = sum(1 for c in hand if c.is_wild)
    # Dumping: the hand may end any moment (the others can close, the stock is short), so
    # every card melded is a card not counted against us.
    dump = opponent_threat(g, seat, params) or len(g.stock) < 6
    # Racing to the pozzetto with a short hand: a wild that brings it closer is well spent.
    race = (not pozzetto_taken and n <= params.race_hand) or dump or (side_burraco and pozzetto_taken)
    best: tuple[float, Action] | None = None
    homeless = pozzetto_taken and not dump and any(
        c.is_wild and not wild_has_home(table, c, ruleset) for c in hand)

    def consider(score: float, action: Action) -> None:
        nonlocal best
        if homeless:
            # After the pozzetto a wild no meld of ours can take must not be left beside a single
            # card: the discard would leave it alone in hand, where it can neither close nor go.
            cards = [Card.parse(t) for t in action["cards"]]
            rest = _rest(hand, cards)
            if not any(c.is_wild for c in cards) and rest is not None and len(rest) == 2 and any(
                    c.is_wild for c in rest):
                return
        if best is None or score > best[0]:
            best = (score, action)

    # Lay-offs, one card at a time.
    seen: set[str] = set()
    for c in hand:
        if c.text in seen:
            continue
        seen.add(c.text)
        for index, meld in enumerate(table):
            if not meld.could_take(c):
                continue
            try:
                new = lay_off(meld, [c], ruleset)
            except IllegalMove:
                continue
            makes_burraco = new.burraco is not None and meld.burraco is None
            if meld.wild is None and new.wild is not None:  # a wild makes this meld dirty
                if meld.burraco in CLEAN_BURRACO and not dump:
                    continue  # never spoil a clean burraco
                if pozzetto_taken and n <= params.lone_wild_hand:
                    score = 160.0 + 3 * len(meld.cards)  # off the hand before it is the last card
                elif makes_burraco:
                    score = 140.0
                elif race or (wild_count >= 2 and len(meld.cards) >= 5):
                    score = params.play_wild_lay_off + 3 * len(meld.cards)
                else:
                    continue  # keep the wild for a burraco
            else:
                score = (params.play_lay_off + c.points + 2 * len(meld.cards)
                         + (params.play_burraco if makes_burraco else 0))
            rest = _rest(hand, [c])
            assert rest is not None
            after = closes_with(new.burraco) or any(closes_with(m.burraco) for i, m in enumerate(table) if i != index)
            if len(rest) <= 1 and not play_allowed(g, seat, rest, after):
                continue
            if len(rest) == 0 and not pozzetto_taken:
                score += params.play_diretta  # in diretta
            consider(score, {"type": "lay_off", "meld": meld.id, "cards": [c.text]})
    # Several naturals at once on the side's own run: 8-9-10 of hearts go on its 5-6-7, never
    # beside it as a second run that can never join the first (nor be laid a card at a time,
    # when a new meld scores higher than a single lay-off).
    for index, meld in enumerate(table):
        if meld.kind != "sequence":
            continue
        chain = extension(hand, meld)
        if len(chain) < 2:
            continue
        try:
            new = lay_off(meld, chain, ruleset)
        except IllegalMove:
            continue
        rest = _rest(hand, chain)
        if rest is None:
            continue
        makes_burraco = new.burraco is not None and meld.burraco is None
        after = closes_with(new.burraco) or any(closes_with(m.burraco) for i, m in enumerate(table) if i != index)
        if len(rest) <= 1 and not play_allowed(g, seat, rest, after):
            continue
        score = (params.play_lay_off + sum(c.points for c in chain) + params.play_chain_card * len(chain)
                 + 2 * len(meld.cards))
        score += params.play_burraco if makes_burraco else 0
        if len(rest) == 0 and not pozzetto_taken:
            score += params.play_diretta
        consider(score, {"type": "lay_off", "meld": meld.id, "cards": [c.text for c in chain]})
    allow_dirty = race or wild_count >= 2
    # A wild spent on a 3-card meld early is a burraco lost: keep it unless racing.
    no_dirty_three = not race and early(g, params)
    for meld in candidate_melds(hand, g, side, allow_dirty):
        if no_dirty_three and meld.wild is not None and len(meld.cards) == 3:
            continue
        rest = _rest(hand, meld.cards)
        if rest is None:
            continue
        after = closes_with(meld.burraco) or side_burraco
        if len(rest) <= 1 and not play_allowed(g, seat, rest, after):
            continue
        dirty = meld.wild is not None
        score = (params.play_meld + meld.points + params.play_meld_card * len(meld.cards)
                 - (params.dirty_meld_cost if dirty else 0))
        if meld.kind == "sequence":
            score += params.sequence_bonus  # runs grow at both ends: the road to a burraco
        if meld.burraco:
            score += params.play_burraco
        if len(rest) == 0 and not pozzetto_taken:
            score += params.play_diretta
        consider(score, {"type": "meld", "cards": meld.texts()})
    return best[1] if best else None


# ----------------------------------------------------------------------------- discard


def discard_scores(g: Game, seat: int, legal: list[str], params: Params = DEFAULT,
                   known: Sequence[Card] = ()) -> dict[str, float]:
    """Lower is a better discard. `known`: cards the other side is known to hold (`pile_worth_to`)."""
    hand = g.hands[seat]
    side = side_of(seat)
    pile_ranks: dict[int, int] = {}
    for c in g.discard_pile:
        if not c.is_wild:
            pile_ranks[c.rank] = pile_ranks.get(c.rank, 0) + 1
    pile_pos = _positions([c for c in g.discard_pile if not c.is_wild])
    pos = _positions([c for c in hand if not c.is_wild])
    by_rank: dict[int, int] = {}
    for c in hand:
        if not c.is_wild:
            by_rank[c.rank] = by_rank.get(c.rank, 0) + 1
    own_set_ranks = {m.low for m in g.table[side] if m.kind == "set"}
    scores: dict[str, float] = {}
    gifts: set[str] = set()
    pile_now = pile_worth_to(g, 1 - side, g.discard_pile, params, known) if params.pile_feed else 0.0
    for text in legal:
        c = Card.parse(text)
        if c.is_wild:
            scores[text] = 1000.0 + c.points
            continue
        keep = 0.0
        same = by_rank.get(c.rank, 0) - 1
        if same >= 1:
            keep += params.keep_pair * same
        if c.rank in own_set_ranks:
            keep += params.keep_pair
        suit_pos = pos.get(c.suit, {})
        places = (1, 14) if c.rank == 1 else (c.rank,)
        for p in places:
            for d, w in ((1, params.keep_near1), (2, params.keep_near2)):
                for q in (p - d, p + d):
                    other = suit_pos.get(q)
                    if other is not None and other is not c and not (other.rank == c.rank):
                        keep += w
        fits, burraco = opponents_can_take(g, seat, c)
        danger = (params.danger_lay_off if fits else 0.0) + (params.danger_burraco if burraco else 0.0)
        # Whoever takes the pile takes this card with it: do not hand them a pair or a run.
        danger += params.pile_same_rank * min(2, pile_ranks.get(c.rank, 0))
        pile_suit = pile_pos.get(c.suit, {})
        for p in places:
            for d, w in ((1, params.pile_near1), (2, params.pile_near2)):
                for q in (p - d, p + d):
                    if q in pile_suit:
                        danger += w
        if params.pile_feed:
            danger += pile_feed_cost(g, seat, c, params, pile_now=pile_now, known=known)
        scores[text] = keep + danger - params.shed_points * c.points
        if burraco:
            gifts.add(text)
    naturals = [t for t in legal if not Card.parse(t).is_wild]
    if naturals and all(t in gifts for t in naturals):
        # Every natural completes one of their burraco: a wild that does not is the lesser gift.
        for text in legal:
            c = Card.parse(text)
            if c.is_wild and not opponents_can_take(g, seat, c)[1]:
                scores[text] = params.danger_burraco - 50 + c.points
    return scores


def no_gift(g: Game, seat: int, legal: list[str]) -> list[str]:
    """The discards of `legal` that complete none of the other side's burraco, or all of
    `legal` when each one does. Whoever takes the pile lays such a card off at once, so it is
    never thrown while another card is left (issue 13), whatever the rest of the reckoning says.

    >>> from games.engine import Ruleset
    >>> g = Game.setup(Ruleset.preset("classico"), hands=["JH 4C", "5S 6S 7S 8S 9S 10S JS 2C"],
    ...                stock="AS", discard="8D", melds=[[], ["5H 6H 7H 8H 9H 10H"]])
    >>> no_gift(g, 0, ["JH", "4C"]), no_gift(g, 0, ["JH"])
    (['4C'], ['JH'])
    """
    kept = [t for t in legal if not opponents_can_take(g, seat, Card.parse(t))[1]]
    return kept or legal


def discard_action(g: Game, seat: int, params: Params = DEFAULT, known: Sequence[Card] = ()) -> Action:
    legal = [a["card"] for a in g.legal_actions(seat, kinds=("discard",))]
    if not legal:
        raise IllegalMove("bad_action")
    scores = discard_scores(g, seat, legal, params, known)
    hand = g.hands[seat]
    side = side_of(seat)
    if (len(hand) == 2 and g.pozzetto_state[side] != "available" and g.has_burraco(side)
            and sum(c.is_wild for c in hand) == 1):
        wild = next(c for c in hand if c.is_wild)
        if wild.text in scores and not wild_has_home(g.table[side], wild, g.ruleset):
            # Keeping it would leave a lone wild that no meld of ours can take: the hand could
            # never close. Throw it and close with the other card.
            scores[wild.text] = -1000.0
    card = min(no_gift(g, seat, legal), key=lambda t: (scores[t], t))
    return {"type": "discard", "card": card}


# ----------------------------------------------------------------------------- finishing the turn


def _finishing_plays(g: Game, seat: int) -> list[Action]:
    """What the turn search tries: the engine's single-card lay-offs and three-card melds, the
    naturals that extend an own run together, every group of cards one meld could hold (from
    hands of `MULTI_LAY_OFF_HAND` or fewer), and the whole hand (or all of it but one card)
    melded at once."""
    plays = list(g.legal_actions(seat, kinds=("lay_off", "meld")))
    hand = g.hands[seat]
    n = len(hand)
    seen: set[tuple[int, tuple[str, ...]]] = set()
    for meld in g.table[side_of(seat)]:
        if meld.kind == "sequence":
            chain = extension(hand, meld)
            if len(chain) >= 2:
                seen.add((meld.id, tuple(sorted(c.text for c in chain))))
                plays.append({"type": "lay_off", "meld": meld.id, "cards": [c.text for c in chain]})
        if n > MULTI_LAY_OFF_HAND:
            continue
        # Several cards on one meld at once: a natural and the wild that bridges its gap, the
        # last cards of the hand together.
        # Only the cards this meld could hold: naturals of its suit (a run) or its rank (a set)
        # and the wilds; anything else the engine would refuse anyway.
        fit = [c for c in hand
               if c.is_wild or (c.suit == meld.suit if meld.kind == "sequence" else c.rank == meld.low)]
        for k in range(2, len(fit) + 1):
            for combo in combinations(fit, k):
                texts = tuple(sorted(c.text for c in combo))
                if (meld.id, texts) in seen:
                    continue
                seen.add((meld.id, texts))
                try:
                    lay_off(meld, list(combo), g.ruleset)
                except IllegalMove:
                    continue
                plays.append({"type": "lay_off", "meld": meld.id, "cards": list(texts)})
    if n >= 4:
        texts = [c.text for c in hand]
        for i in range(-1, n):
            group = hand if i < 0 else hand[:i] + hand[i + 1:]
            if len(group) < 4 or not _may_meld(group):
                continue
            cards = texts if i < 0 else texts[:i] + texts[i + 1:]
            try:
                check_meld(cards, g.ruleset)
            except IllegalMove:
                continue
            plays.append({"type": "meld", "cards": cards})
    return plays


def _may_meld(cards: list[Card]) -> bool:
    """False when `cards` surely make no meld (a quick test before the engine's `check_meld`):
    a meld holds at most two cards that may be wild (a wild and the 2 of a run's own suit), and
    its other cards share a rank (a set) or a suit (a run)."""
    naturals = [c for c in cards if not c.is_wild]
    if len(cards) - len(naturals) > 2:
        return False
    return len({c.rank for c in naturals}) <= 1 or len({c.suit for c in naturals}) <= 1


def _table_worth(g: Game, side: int) -> float:
    return float(sum(m.points + m.bonus for m in g.table[side]))


def hopeless(game: Game, seat: int) -> bool:
    """The turn search (`strategy.finishing_line`) surely finds nothing: two cards of the hand
    cannot leave it (:func:`stranded`), or the pozzetto is gone (so only a close would do), the
    side has no burraco and no meld, nor the hand itself, could reach the seven cards of one."""
    side = seat % 2
    hand = game.hands[seat]
    table = game.table[side]
    if stranded(hand, table) > 1:
        return True
    if game.pozzetto_state[side] == "available" or game.has_burraco(side):
        return False
    n = len(hand)
    return n < 7 and all(len(m.cards) + n < 7 for m in table)


def stranded(hand: list[Card], table: list[Meld]) -> int:
    """How many natural cards of `hand` can surely not leave it this turn: none of the side's
    melds could take them and they make no meld with the rest of the hand.

    An over-estimate of what can leave (so an under-estimate of this count): a wild can always
    go; a natural can go if its side has a set of its rank or a run of its suit that the other
    cards of the hand could bridge to it (each fills one place), or if the hand holds another
    natural of its rank, or of its suit within two places (a meld holds at most one wild, so two
    of its naturals are at most two places apart). The turn search needs all but one card to
    leave the hand, so with two stranded cards it finds nothing and need not run.
    """
    set_ranks = {m.low for m in table if m.kind == "set"}
    reach = len(hand)  # the other cards (and the place next to the run) may bridge a gap
    runs = [(m.suit, m.low - reach, m.high + reach) for m in table if m.kind == "sequence"]
    count = 0
    for i, c in enumerate(hand):
        if c.is_wild or c.rank in set_ranks:
            continue
        places = (1, 14) if c.rank == 1 else (c.rank,)
        if any(suit == c.suit and lo <= p <= hi for suit, lo, hi in runs for p in places):
            continue
        partner = False
        for j, o in enumerate(hand):
            if j == i or o.rank == 0:
                continue
            if o.rank == c.rank:  # c is natural, so is o: a set
                partner = True
                break
            if o.suit != c.suit:
                continue
            o_places = (1, 14) if o.rank == 1 else (o.rank,)
            if any(0 < abs(p - q) <= 2 for p in places for q in o_places):
                partner = True
                break
        if not partner:
            count += 1
    return count


def finishing_line(g: Game, seat: int, params: Params = DEFAULT, *, prune: bool = True) -> list[Action] | None:
    """A line of this turn that takes the pozzetto (before it) or closes (after it), searched
    with the engine on copies of `g`; None when there is none within `finish_nodes` positions or
    the hand is longer than `finish_hand`. Of the lines found, the one leaving the most on the
    side's table. It reads only the seat's hand and its side's melds, so the line is the same
    whatever the determinized game dealt the others.

    A close is taken even when the side is behind: closing only when a guess of the others'
    hands said it was ahead played no better (same seeds) and left two sides passing a card
    through the pile for ever."""
    side = side_of(seat)
    hand = g.hands[seat]
    if len(hand) > params.finish_hand or g.phase != "play":
        return None
    if prune and hopeless(g, seat):  # (`prune=False` only for the test of `hopeless`)
        return None
    want_pozzetto = g.pozzetto_state[side] == "available"
    best: tuple[float, list[Action]] | None = None

    def found(after: Game, line: list[Action]) -> None:
        nonlocal best
        worth = _table_worth(after, side)
        if best is None or worth > best[0]:
            best = (worth, line)

    # Depth first. A child is copied and played only when it is popped (most children of a
    # position are never reached within the budget); a play that empties the hand (the
    # pozzetto in diretta, a close) is played at once, as it ends the line.
    stack: list[tuple[Game, list[Action], Action | None]] = [(g, [], None)]
    seen: set[tuple[Any, ...]] = set()
    nodes = 0
    while stack and nodes < params.finish_nodes:
        parent, path, action = stack.pop()
        if action is None:
            node = parent
        else:
            node = parent.copy()
            try:
                node.apply(seat, action)
            except IllegalMove:
                continue
        key = (tuple(sorted(c.text for c in node.hands[seat])),
               tuple(sorted(tuple(m.texts()) for m in node.table[side])))
        if key in seen:
            continue
        seen.add(key)
        nodes += 1
        size = len(node.hands[seat])
        if size == 1:
            for a in node.legal_actions(seat, kinds=("discard",)):
                # The last card goes: with it the pozzetto, or after it the close.
                if want_pozzetto or node.has_burraco(side):
                    found(node, path + [a])
        for a in _finishing_plays(node, seat):
            if len(a["cards"]) < size:
                stack.append((node, path + [a], a))
                continue
            after = node.copy()
            try:
                after.apply(seat, a)
            except IllegalMove:
                continue
            if after.hand_over:
                if after.closed_by == seat:
                    found(after, path + [a])
            elif want_pozzetto and after.pozzetto_state[side] != "available":
                found(after, path + [a])
    return best[1] if best else None


def greedy_action(g: Game, seat: int, rng: random.Random | None = None,
                  params: Params = MEDIO_WITHOUT_RECORD, known: Sequence[Card] = (),
                  pile_judge: PileJudge | None = None) -> Action:
    """The greedy player's next action for `seat` in `g`: medio's weights unless given, those
    that end a pile passed back and forth without the record's guard (`choose_action` gives
    `MEDIO` with the record, and its pile judge)."""
    if g.phase == "draw":
        return draw_action(g, seat, params, known, rng, pile_judge)
    line = finishing_line(g, seat, params)
    if line:
        return line[0]
    play = best_play(g, seat, params)
    if play is not None:
        return play
    return discard_action(g, seat, params, known)
