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
from typing import Any

from games.engine import Card, Game, Meld, Ruleset, full_deck, parse_cards

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
    left = Counter(c.text for c in full_deck())
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
