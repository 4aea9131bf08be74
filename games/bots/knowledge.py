"""What a computer player can know: its view, read back into engine values.

A computer player is given `view(seat)` and nothing else. This module turns that dict into
engine objects (cards, the melds on the table) and, when a player wants to ask the engine what
is legal or to look ahead, builds a *determinized* game: the cards the view shows are where the
view says, and every hidden card (the others' hands, the stock, the pozzetti) is dealt at random
from the cards the seat has not seen. Whatever the rng deals, the seat's own legal actions are
the same as in the real game, because they depend only on what the seat can see.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import Card, Game, Meld, Ruleset, parse_cards

View = dict[str, Any]

AVAILABLE = "available"
POZZETTO_SIZE = 11


def meld_from_view(data: dict[str, Any]) -> Meld:
    """An engine `Meld` from a view's meld (`Meld.from_dict`)."""
    return Meld.from_dict(data)


def table_melds(view: View) -> list[list[Meld]]:
    """Both sides' melds as engine values."""
    return [[meld_from_view(m) for m in side] for side in view["melds"]]


def hand_cards(view: View) -> list[Card]:
    return parse_cards(view["hand"])


def ruleset_of(view: View) -> Ruleset:
    return Ruleset.from_dict(view["ruleset"])


def unseen_cards(view: View) -> list[Card]:
    """Cards this seat has not seen: the full deck minus its hand, the discard pile and the melds."""
    left = Counter(c.text for c in ruleset_of(view).deck())  # Burraco Reale's has no jolly
    seen = list(view["hand"]) + list(view["discard"])
    for side in view["melds"]:
        for m in side:
            seen.extend(m["cards"])
    for text in seen:
        left[text] -= 1
    pool: list[Card] = []
    for text, k in left.items():
        if k > 0:
            pool.extend([Card.parse(text)] * k)
    return pool


def hidden_counts(view: View) -> int:
    """How many cards the view hides: others' hands, the stock and the untaken pozzetti."""
    seat = view["seat"]
    others = sum(n for s, n in enumerate(view["hand_counts"]) if s != seat)
    pozzetti = sum(POZZETTO_SIZE for p in view["pozzetti"] if p == AVAILABLE)
    return others + view["stock_count"] + pozzetti


def determinize(view: View, rng: random.Random, *, reserved: dict[int, list[Card]] | None = None) -> Game:
    """A complete engine game consistent with `view`, hidden cards dealt by `rng`.

    `reserved` puts known cards in another seat's hand first (an expert's inference); the rest is
    random. If the counts do not add up (a position built by hand for a test may leave cards out),
    the missing hidden cards are simply fewer: stock first, then pozzetti are kept whole.
    """
    seat = view["seat"]
    players = view["players"]
    pool = unseen_cards(view)
    rng.shuffle(pool)
    reserved = reserved or {}
    for cards in reserved.values():
        for c in cards:
            if c in pool:
                pool.remove(c)

    def take(n: int) -> list[str]:
        n = max(0, min(n, len(pool)))
        out = [pool.pop().text for _ in range(n)]
        return out

    hands: list[list[str]] = []
    for s in range(players):
        if s == seat:
            hands.append(list(view["hand"]))
            continue
        known = [c.text for c in reserved.get(s, [])][: view["hand_counts"][s]]
        hands.append(known + take(view["hand_counts"][s] - len(known)))
    pozzetti: list[list[str] | None] = []
    for state in view["pozzetti"]:
        pozzetti.append(take(POZZETTO_SIZE) if state == AVAILABLE else None)
    stock = take(view["stock_count"])
    return Game.from_view(view, hands=hands, stock=stock, pozzetti=pozzetti)


# ----------------------------------------------------------------------------- memory

# How much less likely a world is in which the other player's last choice was an odd one, for a
# player who plays for melds: drawing from the stock although the pile's cards made a natural
# meld with two cards of their hand; discarding a card that made one; taking the pile although
# none of the cards taken (and still held) fitted anything. Mild, so that a few dozen sampled
# worlds still count (a person, or a player who keeps a wild for later, does such things).
DECLINED_FIT = 0.5
DISCARDED_FIT = 0.6
TAKEN_NO_FIT = 0.6

Record = list[dict[str, Any]]


def _positions(cards: list[Card]) -> tuple[Counter, dict[str, set[int]]]:
    ranks: Counter = Counter()
    suits: dict[str, set[int]] = {}
    for c in cards:
        if c.is_wild:
            continue
        ranks[c.rank] += 1
        places = suits.setdefault(c.suit, set())
        places.add(c.rank)
        if c.rank == 1:
            places.add(14)
    return ranks, suits


def fits(card: Card, cards: list[Card]) -> bool:
    """Whether ``card`` makes a natural three-card meld with two of ``cards`` (two of its rank,
    or two neighbours in its suit). Wilds do not count: they fit everything.

    >>> fits(Card.parse("7H"), parse_cards("7S 7D KC")), fits(Card.parse("7H"), parse_cards("8H 9H"))
    (True, True)
    >>> fits(Card.parse("7H"), parse_cards("7S 8S 9D JK"))
    False
    """
    if card.is_wild:
        return False
    ranks, suits = _positions(cards)
    if ranks[card.rank] >= 2:
        return True
    places = suits.get(card.suit, set())
    for r in ((1, 14) if card.rank == 1 else (card.rank,)):
        for a, b in ((r - 2, r - 1), (r - 1, r + 1), (r + 1, r + 2)):
            if a in places and b in places:
                return True
    return False


def _without(cards: Sequence[Card], card: Card) -> list[Card]:
    """``cards`` less one copy of ``card``."""
    rest = list(cards)
    if card in rest:
        rest.remove(card)
    return rest


@dataclass(frozen=True)
class Clue:
    """One seat's last turn, as the record shows it: the pile it declined (drew from the stock
    instead), the cards it took and still holds, the card it discarded, and the cards it played
    since the draw (back in its hand at the time it chose)."""

    seat: int
    declined: tuple[Card, ...] = ()
    taken: tuple[Card, ...] = ()
    discarded: Card | None = None
    played: tuple[Card, ...] = ()


@dataclass(frozen=True)
class Memory:
    """What the hand's public record tells one seat about the other hands: ``known`` cards each
    seat took from the pile and has not shown since (they are in its hand for sure), and the
    ``clues`` of each seat's last turn, which make some deals of the hidden cards likelier."""

    known: dict[int, list[Card]]
    clues: tuple[Clue, ...]

    def deal(self, view: View, rng: random.Random) -> Game:
        """A determinized game (:func:`determinize`) with the known cards where they are."""
        return determinize(view, rng, reserved=self.known)

    def weight(self, world: Game) -> float:
        """How likely the others' observed choices are in ``world`` (1.0: nothing odd)."""
        w = 1.0
        for clue in self.clues:
            hand = world.hand(clue.seat)
            before = hand + list(clue.played)
            if clue.declined and any(fits(c, before + _without(clue.declined, c)) for c in clue.declined):
                w *= DECLINED_FIT
            if clue.taken and not any(fits(c, _without(hand, c)) for c in clue.taken):
                w *= TAKEN_NO_FIT
            if clue.discarded is not None and fits(clue.discarded, hand):
                w *= DISCARDED_FIT
        return w


def memory_of(view: View, record: Record | None) -> Memory | None:
    """The seat's memory of the hand from ``record`` (`Game.public_record`), or None without a
    record or when the record is not this view's hand (its actions do not add up to the view's
    ``version``). Only public facts are read: the record holds nothing else.

    >>> from games.engine import Ruleset
    >>> g = Game.setup(Ruleset.preset("classico"), hands=["7H 8H 9H KD", "5S 5D QS"],
    ...                stock="QC TS 4C 5C 6C", discard="QD", to_move=0)
    >>> for a in ({"type": "draw"}, {"type": "discard", "card": "KD"}, {"type": "take_discards"}):
    ...     g.apply(g.to_move, a)
    >>> [str(c) for c in memory_of(g.view(0), g.public_record()).known[1]]
    ['QD', 'KD']
    """
    if record is None:
        return None
    if sum(1 for e in record if e["seat"] is not None and e["type"] != "pozzetto") != view.get("version"):
        return None
    seat = view["seat"]
    known: dict[int, list[Card]] = {}
    last: dict[int, dict[str, Any]] = {}
    pile = _first_pile(view, record)
    for entry in record:
        s, kind = entry["seat"], entry["type"]
        if s is None or s == seat:
            if kind == "discard":
                pile.append(entry["card"])
            elif kind == "take_discards":
                pile = []
            continue
        held = known.setdefault(s, [])
        if kind in ("draw", "take_discards"):
            turn = last[s] = {"played": []}
            if kind == "draw":
                turn["declined"] = list(pile)
            else:
                turn["taken"] = list(entry["cards"])
                held.extend(Card.parse(t) for t in entry["cards"])
                pile = []
        elif kind == "pozzetto":
            held.clear()  # a new hand: what it held is gone (played or discarded)
            last.pop(s, None)
        else:
            cards = [entry["card"]] if kind == "discard" else list(entry["cards"])
            for t in cards:
                c = Card.parse(t)
                if c in held:
                    held.remove(c)
            if s in last:
                last[s]["played"].extend(cards)
                if kind == "discard":
                    last[s]["discarded"] = entry["card"]
            if kind == "discard":
                pile.append(entry["card"])
    # A known card must still be unseen by this seat (a sanity check against a stale record).
    pool = Counter(c.text for c in unseen_cards(view))
    counts = view["hand_counts"]
    pinned: dict[int, list[Card]] = {}
    for s, held in known.items():
        keep = []
        for c in held:
            if pool[c.text] > 0 and len(keep) < counts[s]:
                pool[c.text] -= 1
                keep.append(c)
        if keep:
            pinned[s] = keep
    clues = []
    for s, turn in sorted(last.items()):
        taken = tuple(c for c in pinned.get(s, []) if c.text in turn.get("taken", ()))
        discarded = turn.get("discarded")
        clues.append(Clue(
            seat=s,
            declined=tuple(c for c in parse_cards(turn.get("declined", [])) if not c.is_wild),
            taken=taken,
            discarded=None if discarded is None else Card.parse(discarded),
            played=tuple(parse_cards(turn["played"])),
        ))
    return Memory(pinned, tuple(clues))


def _first_pile(view: View, record: Record) -> list[str]:
    """The pile as dealt (the record starts from it): what the first taker took, or the pile
    now, less the discards made before."""
    discards = 0
    for entry in record:
        if entry["type"] == "take_discards":
            cards = list(entry["cards"])
            return cards[:max(0, len(cards) - discards)]
        if entry["type"] == "discard":
            discards += 1
    pile = list(view["discard"])
    return pile[:max(0, len(pile) - discards)]
