"""The sparring partner (issue 31): a computer player that punishes one who feeds the pile.

Built to measure our levels against the kind of player that beat them on points: it takes the
discard pile whenever what the pile brings, played out on a copy of the game, is worth more
than the stock card, builds every meld it can from it, and judges each of its moves by playing
it on a copy and valuing where it leads (:func:`worth`). A discard is judged by what it leaves
in hand and by what the pile it makes is worth to the other side (`strategy.pile_worth_to`).
Not a level of the site (`games.bots.LAB_LEVELS`): a lab opponent.

Like every player it reads only its seat's view: `game` is the determinized game built from it
(`knowledge.determinize`), whose hidden cards are random, and it looks at no hidden card but
the top of that random stock, which stands for "a stock card".
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import Card, Game, IllegalMove

from .strategy import (
    best_play,
    candidate_melds,
    extension,
    finishing_line,
    hand_value,
    opponent_threat,
    opponents_can_take,
    pile_worth_to,
    side_of,
)

Action = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SparringParams:
    hand_risk: float = 0.4  # each point in hand counts this much against (it may be caught there)
    hand_risk_threatened: float = 1.0  # ... all of it when the others may close soon
    potential: float = 0.5  # the hand's makings (`strategy.hand_value`) at this share
    stock_samples: int = 3  # stock cards tried for a draw (the determinized stock is reshuffled)
    # Take the pile unless its turn, played out on a copy, ends this much worse than the stock
    # card's. Taking is what wins points: against medio (200 duplicate hands, seed 11) a margin
    # of +5 took 4.5 piles a hand and scored -2 a hand, -20 took 21 (+127), -100 took 36 (+269).
    take_margin: float = -100.0
    pile_to_them: float = 0.8  # what the pile is worth to the other side counts this much
    max_turn_plays: int = 30  # a safety bound on the plays of a turn tried on a copy
    medio_plays: bool = True  # melds and lay-offs as medio plays them (else each judged on a copy)


SPARRING = SparringParams()


def worth(g: Game, seat: int, params: SparringParams = SPARRING) -> float:
    """How good `g` is for `seat`'s side, in points: the side's score as if the hand ended now
    with the cards in hand forgiven in part (they may still be melded), plus the hand's makings."""
    side = side_of(seat)
    score = g.score()[side]
    if g.hand_over:
        return float(score["total"])
    risk = params.hand_risk_threatened if opponent_threat(g, seat) else params.hand_risk
    hand = g.hands[seat]
    in_hand = sum(c.points for c in hand)
    return (score["total"] + (1 - risk) * in_hand
            + params.potential * hand_value(hand, g, side))


def play_turn(g: Game, seat: int, params: SparringParams = SPARRING) -> None:
    """Play `seat`'s melds and lay-offs on `g` as the sparring partner would, up to the discard."""
    for _ in range(params.max_turn_plays):
        if g.hand_over or g.phase != "play" or g.to_move != seat:
            return
        play = _best_play(g, seat, params)
        if play is None:
            return
        g.apply(seat, play)


def _plays(g: Game, seat: int) -> list[Action]:
    """Melds (clean and with a wild), single lay-offs, and runs extended by several cards."""
    side = side_of(seat)
    hand = g.hands[seat]
    plays: list[Action] = [{"type": "meld", "cards": m.texts()}
                           for m in candidate_melds(hand, g, side, allow_dirty=True)]
    plays.extend(g.legal_actions(seat, kinds=("lay_off",)))
    for meld in g.table[side]:
        if meld.kind == "sequence":
            chain = extension(hand, meld)
            if len(chain) >= 2:
                plays.append({"type": "lay_off", "meld": meld.id, "cards": [c.text for c in chain]})
    greedy = best_play(g, seat)
    if greedy is not None:
        plays.append(greedy)
    return plays


def _best_play(g: Game, seat: int, params: SparringParams) -> Action | None:
    """The meld or lay-off whose position is worth most, if it is worth more than playing none."""
    line = finishing_line(g, seat)
    if line:
        return line[0]
    if params.medio_plays:
        return best_play(g, seat)
    best: tuple[float, Action] | None = None
    base = worth(g, seat, params)
    for play in _plays(g, seat):
        after = _played(g, seat, play)
        value = -1e9 if after is None else worth(after, seat, params)
        if value > base and (best is None or value > best[0]):
            best = (value, play)
    return best[1] if best else None


def _played(g: Game, seat: int, action: Action) -> Game | None:
    """A copy of `g` after `action`, or None when the engine refuses it."""
    after = g.copy()
    try:
        after.apply(seat, action)
    except IllegalMove:
        return None
    return after


def _after_turn(g: Game, seat: int, first: Action, params: SparringParams) -> float:
    after = g.copy()
    after.apply(seat, first)
    play_turn(after, seat, params)
    return worth(after, seat, params)


def draw_choice(g: Game, seat: int, rng: random.Random, params: SparringParams = SPARRING,
                known: Sequence[Card] = ()) -> Action:
    """The pile unless its turn, played out on a copy, falls behind the stock card's (a few stock
    cards tried) by more than :attr:`SparringParams.take_margin`. `known`: cards the other side
    is known to hold (`strategy.pile_worth_to`; medio passes them, the sparring partner none)."""
    if not g.discard_pile:
        return {"type": "draw"}
    if not g.stock:
        return {"type": "take_discards"}
    take = _after_turn(g, seat, {"type": "take_discards"}, params)
    draws = []
    for _ in range(params.stock_samples):
        sample = g.copy()
        rng.shuffle(sample.stock)  # hidden cards: any order is as likely
        draws.append(_after_turn(sample, seat, {"type": "draw"}, params))
    stock = sum(draws) / len(draws)
    # The pile left behind goes to the others with our discard on top: what it gives them
    # counts for the stock card too, and against nothing when we take it.
    left = params.pile_to_them * pile_worth_to(g, 1 - side_of(seat), g.discard_pile, known=known)
    return {"type": "take_discards"} if take - stock + left > params.take_margin else {"type": "draw"}


def copy_pile_judge(g: Game, seat: int, rng: random.Random, stock_samples: int,
                    known: Sequence[Card] = ()) -> Action:
    """medio's pile judgement (`strategy.Params.take_on_copy`, a `strategy.PileJudge`): this
    partner's `draw_choice` with `stock_samples` stock cards tried."""
    return draw_choice(g, seat, rng, dataclasses.replace(SPARRING, stock_samples=stock_samples), known=known)


def discard_choice(g: Game, seat: int, params: SparringParams = SPARRING) -> Action:
    """The discard that leaves the best position, counting what the pile it makes is worth to
    the other side; a card that completes their burraco only when every card does."""
    other = 1 - side_of(seat)
    legal = [a["card"] for a in g.legal_actions(seat, kinds=("discard",))]
    best: tuple[float, str] | None = None
    gifts = {t for t in legal if opponents_can_take(g, seat, Card.parse(t))[1]}
    for text in legal:
        after = g.copy()
        after.apply(seat, {"type": "discard", "card": text})
        value = worth(after, seat, params) if after.hand_over else (
            worth(after, seat, params)
            - params.pile_to_them * pile_worth_to(g, other, [*g.discard_pile, Card.parse(text)]))
        if text in gifts and len(gifts) < len(legal):
            value -= 1000.0
        if best is None or (value, text) > best:
            best = (value, text)
    assert best is not None
    return {"type": "discard", "card": best[1]}


def sparring_action(g: Game, seat: int, rng: random.Random | None = None,
                    params: SparringParams = SPARRING) -> Action:
    """The sparring partner's next action for `seat` in the determinized game `g`."""
    rng = rng or random.Random()
    if g.phase == "draw":
        return draw_choice(g, seat, rng, params)
    play = _best_play(g, seat, params)
    return play if play is not None else discard_choice(g, seat, params)
