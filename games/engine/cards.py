"""Cards and their text notation.

A card is written as rank + suit: ranks ``A 2 3 4 5 6 7 8 9 T J Q K``, suits ``S`` (picche),
``H`` (cuori), ``D`` (quadri), ``C`` (fiori); the joker is ``JK``. The two physical copies of a
card share one notation and are interchangeable, so the engine keeps one shared object per
notation (53 of them) and compares cards by value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import IllegalMove

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER_TEXT = "JK"

# Card points (RULES §1), shown on the rules pages; a 2 is worth 20 even as a natural card.
CARD_POINTS: dict[str, int] = {
    "JK": 30,
    "2": 20,
    "A": 15,
    "K": 10, "Q": 10, "J": 10, "T": 10, "9": 10, "8": 10,
    "7": 5, "6": 5, "5": 5, "4": 5, "3": 5,
}


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card. ``rank`` is 1 (ace) to 13 (king), 0 for the joker; ``suit`` is '' for the joker.

    >>> card = Card.parse("TH")
    >>> card.rank, card.suit, card.points, str(card)
    (10, 'H', 10, 'TH')
    >>> Card.parse("jk").is_wild, Card.parse("2C").is_wild, Card.parse("AS").is_wild
    (True, True, False)
    >>> Card(7, "H") == Card.parse("7H")
    True
    >>> hash(Card.parse("7H")) == hash(Card(7, "H")) == 29     # the same in every process
    True
    """

    rank: int
    suit: str
    text: str = field(init=False, repr=False)
    points: int = field(init=False, repr=False)
    is_wild: bool = field(init=False, repr=False)
    key: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.rank == 0 and self.suit == "":
            text = JOKER_TEXT
        elif 1 <= self.rank <= 13 and self.suit in SUITS and len(self.suit) == 1:
            text = RANKS[self.rank - 1] + self.suit
        else:
            raise IllegalMove("bad_card")
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "points", CARD_POINTS["JK" if self.rank == 0 else text[0]])
        object.__setattr__(self, "is_wild", self.rank in (0, 2))
        # A small int of the card alone: hashing it gives the same value in every process (a
        # string's hash changes with PYTHONHASHSEED), so sets and dicts of cards keep one order.
        object.__setattr__(self, "key", 0 if self.rank == 0 else self.rank * 4 + SUITS.index(self.suit))

    @staticmethod
    def parse(text: str) -> Card:
        """The shared card for a notation (case and a leading ``10`` are tolerated)."""
        try:
            return _BY_TEXT[text]
        except (KeyError, TypeError):
            pass
        if not isinstance(text, str):
            raise IllegalMove("bad_card")
        clean = text.strip().upper()
        if clean.startswith("10"):
            clean = "T" + clean[2:]
        try:
            return _BY_TEXT[clean]
        except KeyError:
            raise IllegalMove("bad_card") from None

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text})"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, Card):
            return self.rank == other.rank and self.suit == other.suit
        return NotImplemented

    def __hash__(self) -> int:
        return self.key

    def __lt__(self, other: Card) -> bool:
        return _ORDER[self.text] < _ORDER[other.text]


JOKER = Card(0, "")
ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in range(1, 14)) + (JOKER,)
_BY_TEXT: dict[str, Card] = {c.text: c for c in ALL_CARDS}
# Display order: by suit, then rank, joker last (used to sort hands for people).
_ORDER: dict[str, int] = {c.text: i for i, c in enumerate(ALL_CARDS)}


def card(text: str) -> Card:
    """Shortcut for :meth:`Card.parse`.

    >>> card("QS")
    Card(QS)
    """
    return Card.parse(text)


def parse_cards(cards: str | Iterable[str | Card]) -> list[Card]:
    """Cards from a space separated string or from a list of notations.

    >>> parse_cards("7H 8H JK")
    [Card(7H), Card(8H), Card(JK)]
    >>> [str(c) for c in parse_cards(["th", "2c"])]
    ['TH', '2C']
    >>> parse_cards("ZZ")
    Traceback (most recent call last):
    ...
    games.engine.errors.IllegalMove: bad_card: Carta non riconosciuta
    """
    if isinstance(cards, str):
        cards = cards.split()
    elif cards is None:
        raise IllegalMove("bad_card")
    try:
        return [c if isinstance(c, Card) else Card.parse(c) for c in cards]
    except TypeError:
        raise IllegalMove("bad_card") from None


def cards_text(cards: Iterable[Card]) -> list[str]:
    """Notations of some cards, in order.

    >>> cards_text(parse_cards("AS JK"))
    ['AS', 'JK']
    """
    return [c.text for c in cards]


def full_deck() -> list[Card]:
    """The 108 cards of a game: two 52-card decks and four jokers, in a fixed order.

    >>> deck = full_deck()
    >>> len(deck), sum(c.is_joker for c in deck), sum(c.rank == 2 for c in deck)
    (108, 4, 8)
    """
    return list(ALL_CARDS[:52]) * 2 + [JOKER] * 4


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards in display order: suits S H D C, ace to king, jokers last.

    >>> cards_text(sort_cards(parse_cards("JK 3H AS 2H")))
    ['AS', '2H', '3H', 'JK']
    """
    return sorted(cards, key=lambda c: _ORDER[c.text])
