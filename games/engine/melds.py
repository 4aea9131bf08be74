"""Melds (giochi): reading a group of cards as a sequence or a set, and laying off onto one.

A meld holds at most one card acting as a wild. A 2 of a sequence's own suit standing in its
natural place next to a real 3 is a natural card; where a 2 can be read either way it is read as
natural (the reading with fewest wilds), so a clean meld stays clean (RULES §4). That holds too
for a wild 2 that slides into its own place when the card it stood for is laid off.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cards import RANKS, Card, parse_cards
from .errors import IllegalMove
from .rules import REALE, Ruleset

BURRACO_BONUS: dict[str, int] = {"pulito": 200, "semipulito": 150, "sporco": 100,
                                 "nobile": 500, "reale": 1000}  # the last two: Burraco Reale
MAX_MELD = 14

# Where a wild goes when the naturals leave no gap for it.
TOP = 0
BOTTOM = -1


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld on the table (or a candidate checked by :func:`check_meld`).

    ``cards`` are as laid: a sequence from low to high with the wild in the place it stands for.
    ``wild`` is the index in ``cards`` of the card acting as a wild (None when clean).
    ``low`` is the position of ``cards[0]`` in a sequence (1 = low ace, 14 = high ace) and the
    rank of a set; ``suit`` is the sequence's suit ('' for a set).

    >>> m = check_meld(parse_cards("3H 4H JK 6H"))
    >>> m.kind, [str(c) for c in m.cards], m.wild, m.burraco, m.points
    ('sequence', ['3H', '4H', 'JK', '6H'], 2, None, 45)
    """

    kind: str
    cards: tuple[Card, ...]
    burraco: str | None
    points: int
    wild: int | None
    low: int
    suit: str
    id: int = 0

    @property
    def high(self) -> int:
        """Position of the last card of a sequence (14 = high ace)."""
        return self.low + len(self.cards) - 1

    @property
    def wild_card(self) -> Card | None:
        return None if self.wild is None else self.cards[self.wild]

    @property
    def bonus(self) -> int:
        return BURRACO_BONUS[self.burraco] if self.burraco else 0

    def texts(self) -> list[str]:
        return [c.text for c in self.cards]

    @property
    def stands_for(self) -> dict | None:
        """What the wild stands for, as the table shows it: the rank and suit of its place in a
        sequence (an ace above the king is rank "A" too), the rank alone in a set (suit None);
        None when the meld is clean. Not a card's text ("4C"): no card by that name is there.

        >>> check_meld(parse_cards("AC 2H 3C 4C")).stands_for
        {'rank': '2', 'suit': 'C'}
        >>> check_meld(parse_cards("AC 2C 3C 4C")).stands_for
        >>> check_meld(parse_cards("3C 2H 5C")).stands_for
        {'rank': '4', 'suit': 'C'}
        >>> check_meld(parse_cards("7D 8D JK TD JD QD")).stands_for
        {'rank': '9', 'suit': 'D'}
        >>> check_meld(parse_cards("QS KS JK")).stands_for
        {'rank': 'A', 'suit': 'S'}
        >>> check_meld(parse_cards("5H 5S JK")).stands_for
        {'rank': '5', 'suit': None}
        """
        if self.wild is None:
            return None
        if self.kind == "set":
            return {"rank": RANKS[self.low - 1], "suit": None}
        return {"rank": RANKS[(self.low + self.wild - 1) % 13], "suit": self.suit}

    def view_dict(self) -> dict:
        """:meth:`to_dict` plus ``stands_for``, as the engine's views carry a meld (saved games
        keep :meth:`to_dict` alone).

        >>> check_meld(parse_cards("3D 4D JK 6D")).view_dict()["stands_for"]
        {'rank': '5', 'suit': 'D'}
        """
        data = self.to_dict()
        data["stands_for"] = self.stands_for
        return data

    def to_dict(self) -> dict:
        """JSON-ready description, as views and saved games carry it (a fresh dict each call).

        >>> check_meld("5H 5S JK").to_dict()
        {'id': 0, 'kind': 'set', 'cards': ['5H', '5S', 'JK'], 'burraco': None, 'points': 40, 'wild': 2}
        """
        return {"id": self.id, "kind": self.kind, "cards": [c.text for c in self.cards],
                "burraco": self.burraco, "points": self.points, "wild": self.wild}

    @classmethod
    def from_dict(cls, data: dict) -> Meld:
        """The meld a :meth:`to_dict` (as views carry it) describes; ``low`` and ``suit``, which
        the dict leaves out, follow from any natural card and its index.

        >>> m = Meld.from_dict({"id": 4, "kind": "sequence", "cards": ["JK", "5H", "6H"],
        ...                     "burraco": None, "points": 40, "wild": 0})
        >>> m.low, m.suit, m.id
        (4, 'H', 4)
        """
        cards = tuple(parse_cards(data["cards"]))
        wild = data.get("wild")
        low, suit = 0, ""
        if data["kind"] == "set":
            low = next(c.rank for i, c in enumerate(cards) if i != wild and not c.is_wild)
        else:
            for i, c in enumerate(cards):
                if i == wild or c.rank == 0:
                    continue
                suit = c.suit
                if c.rank != 1:  # an ace may be low or high: place the run by another card
                    low = c.rank - i
                    break
            else:  # only aces among the naturals cannot be a legal sequence; keep something sane
                low = 1
        return cls(data["kind"], cards, data.get("burraco"), int(data.get("points", 0)), wild, low, suit,
                   int(data.get("id", 0)))

    def could_take(self, card: Card) -> bool:
        """Cheap pre-check for a single-card lay-off (no false negatives); confirm with
        :func:`lay_off`."""
        if self.kind == "set":
            return card.rank == self.low or (card.is_wild and self.wild is None)
        if len(self.cards) >= MAX_MELD:
            return False
        rank = card.rank
        if rank == 0:
            return self.wild is None
        if rank == 2:
            return self.wild is None or (card.suit == self.suit and (
                self.low == 3 or self.low + self.wild == 2))
        if card.suit != self.suit:
            return False
        low, high = self.low, self.high
        wild_pos = -5 if self.wild is None else low + self.wild
        if rank == 1:
            return low == 2 or high == 13 or wild_pos in (1, 14)
        return rank == low - 1 or rank == high + 1 or rank == wild_pos


def burraco_kind(kind: str, size: int, wild: int | None, ruleset: Ruleset) -> str | None:
    """Which burraco a meld is, if any (RULES §5).

    >>> burraco_kind("sequence", 8, 7, Ruleset.preset(semipulito=True))
    'semipulito'
    >>> burraco_kind("sequence", 8, 3, Ruleset.preset(semipulito=True))
    'sporco'
    >>> burraco_kind("set", 7, None, Ruleset.preset("testa_a_testa")) is None
    True
    """
    if size < 7 or (kind == "set" and not ruleset.burraco_sets):
        return None
    if wild is None:
        return "pulito"
    if kind == "sequence" and ruleset.semipulito and size >= 8 and wild in (0, size - 1):
        return "semipulito"
    return "sporco"


_DEFAULT_RULES = Ruleset()


def _looks_like_a_sequence(plain: list[Card], size: int) -> bool:
    """Whether cards of mixed suits were meant as a sequence, so that "not the same suit" is the
    reason to give: distinct ranks, and either two of them share a suit or the ranks would fit in
    a run of this many cards (ace low or high). Three unrelated cards (7H KS 4C) are simply not
    homogeneous.

    >>> _looks_like_a_sequence(parse_cards("7H 8S 9H"), 3), _looks_like_a_sequence(parse_cards("7H KS 4C"), 3)
    (True, False)
    """
    ranks = [c.rank for c in plain]
    if len(set(ranks)) != len(ranks):
        return False
    if len({c.suit for c in plain}) < len(plain):
        return True
    for ace in (1, 14):
        read = [ace if r == 1 else r for r in ranks]
        if max(read) - min(read) < size:
            return True
    return False


def check_meld(cards: Iterable[Card | str] | str, ruleset: Ruleset | None = None) -> Meld:
    """Read cards as a new meld, or raise :class:`IllegalMove` with the reason.

    Where the naturals leave no gap, the wild goes on top, or at the bottom if it is listed
    first (or if the top is a high ace).

    >>> [str(c) for c in check_meld("KH AH 2H").cards]   # the 2 stands for the queen
    ['2H', 'KH', 'AH']
    >>> check_meld("AH 2H 3H").wild is None                # natural 2: clean
    True
    >>> check_meld("AH 2H JK")
    Traceback (most recent call last):
    ...
    games.engine.errors.IllegalMove: joker_and_pinella: Con un Joker è ammessa al massimo una pinella
    >>> check_meld("5H 5S JK").kind
    'set'
    """
    given = parse_cards(cards)
    ruleset = ruleset or _DEFAULT_RULES
    if ruleset.variant == REALE:
        return _check_reale_meld(given, ruleset)
    size = len(given)
    if size < 3 or size > MAX_MELD:
        raise IllegalMove("meld_size")
    plain: list[Card] = []
    twos: list[Card] = []
    jokers: list[Card] = []
    _sort_by_kind(given, plain, twos, jokers)
    if not plain:
        raise IllegalMove("only_wilds" if jokers else "set_of_twos")
    first = plain[0]
    same_rank = all(c.rank == first.rank for c in plain)
    if same_rank and not (len(plain) == 1 and first.rank == 3
                          and any(t.suit == first.suit for t in twos)):
        return _read_set(plain, twos, jokers, None, False, ruleset)
    if any(c.suit != first.suit for c in plain):
        raise IllegalMove("mixed_suits" if _looks_like_a_sequence(plain, size) else "not_homogeneous")
    prefer = BOTTOM if (given[0].is_wild and not given[-1].is_wild) else TOP
    return _read_sequence(plain, twos, jokers, None, prefer, False, False, ruleset)


def lay_off(meld: Meld, cards: Sequence[Card], ruleset: Ruleset | None = None) -> Meld:
    """The meld after laying off ``cards`` (same id), or raise :class:`IllegalMove`.

    The wild already in the meld stays a wild; when its natural card arrives it slides to the
    top end (the bottom end when the top is a high ace). The natural cards keep their places, an
    ace included: a high ace stays high. A 2 of the meld's suit whose run now starts at the real
    3 slides to its own place just below it, whichever end is free, and is natural there, so the
    meld becomes clean.

    >>> m = check_meld("3H 4H JK 6H 7H 8H 9H")
    >>> m.burraco
    'sporco'
    >>> [str(c) for c in lay_off(m, parse_cards("5H")).cards]
    ['3H', '4H', '5H', '6H', '7H', '8H', '9H', 'JK']
    >>> high = check_meld("JK 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")     # the jolly as the 2
    >>> [str(c) for c in lay_off(high, parse_cards("2H")).cards][:2], high.cards[-1]
    (['JK', '2H'], Card(AH))
    >>> own = check_meld("3S 4S 5S 6S 7S 8S 9S 2S JS QS KS AS")           # the 2 as the 10
    >>> slid = lay_off(own, parse_cards("TS"))
    >>> str(slid.cards[0]), slid.wild, slid.burraco
    ('2S', None, 'pulito')
    >>> [str(c) for c in lay_off(check_meld("3D 4D 2D 6D 7D"), parse_cards("5D")).cards]
    ['2D', '3D', '4D', '5D', '6D', '7D']
    """
    ruleset = ruleset or _DEFAULT_RULES
    if ruleset.variant == REALE:
        return _lay_off_reale(meld, cards, ruleset)
    if not cards:
        raise IllegalMove("bad_action")
    if len(meld.cards) + len(cards) > MAX_MELD:
        raise IllegalMove("meld_size")
    forced = meld.wild_card
    plain: list[Card] = []
    twos: list[Card] = []
    jokers: list[Card] = []
    ace_ends: list[int] = []  # where the meld's natural aces stand (1 low, 14 high): they stay
    for i, c in enumerate(meld.cards):
        if i != meld.wild:
            (twos if c.rank == 2 else plain).append(c)
            if c.rank == 1:
                ace_ends.append(meld.low + i)
    has_natural_two = bool(twos)  # in a meld on the table a non-wild 2 is a natural 2
    _sort_by_kind(cards, plain, twos, jokers)
    if meld.kind == "set":
        new = _read_set(plain, twos, jokers, forced, True, ruleset)
    else:
        if any(c.suit != meld.suit for c in plain):
            raise IllegalMove("mixed_suits")
        prefer = TOP if meld.wild is None else meld.low + meld.wild
        new = _read_sequence(plain, twos, jokers, forced, prefer, True, has_natural_two, ruleset,
                             tuple(ace_ends))
    return Meld(new.kind, new.cards, new.burraco, new.points, new.wild, new.low, new.suit, meld.id)


def _read_set(plain: list[Card], twos: list[Card], jokers: list[Card], forced: Card | None,
              laying: bool, ruleset: Ruleset) -> Meld:
    rank = plain[0].rank
    for c in plain:
        if c.rank != rank:
            raise IllegalMove("not_homogeneous")
    wilds = jokers + twos
    if forced is not None:
        wilds.append(forced)
    if len(wilds) > 1:
        n_jokers = sum(1 for w in wilds if w.rank == 0)
        if n_jokers > 1:
            raise IllegalMove("one_joker_only")
        if len(wilds) - n_jokers > 2:
            raise IllegalMove("too_many_pinelle")
        if n_jokers:
            raise IllegalMove("joker_and_pinella")
        raise IllegalMove("pinella_cannot_heal" if laying and forced is not None else "two_wilds")
    if wilds:
        laid = tuple(plain) + (wilds[0],)
        wild = len(plain)
    else:
        laid = tuple(plain)
        wild = None
    size = len(laid)
    return Meld("set", laid, burraco_kind("set", size, wild, ruleset),
                sum(c.points for c in laid), wild, rank, "")


def _read_sequence(plain: list[Card], twos: list[Card], jokers: list[Card], forced: Card | None,
                   prefer: int, laying: bool, natural_two_fixed: bool, ruleset: Ruleset,
                   ace_ends: tuple[int, ...] = ()) -> Meld:
    suit = plain[0].suit
    n_jokers = len(jokers) + (forced is not None and forced.rank == 0)
    if n_jokers > 1:
        raise IllegalMove("one_joker_only")
    if len(twos) + (forced is not None and forced.rank == 2) > 2:
        raise IllegalMove("too_many_pinelle")
    # A 2 can be natural only in its own suit next to a real 3 of that suit.
    natural_two = None
    if any(c.rank == 3 for c in plain):
        for t in twos:
            if t.suit == suit:
                natural_two = t
                break
    if natural_two is not None:
        others = list(twos)
        others.remove(natural_two)
        try:
            return _place(plain, natural_two, others, jokers, forced, prefer, laying, ruleset,
                          ace_ends)
        except IllegalMove:
            if natural_two_fixed:
                raise
            # Read as natural where possible; otherwise try the 2 as the wild.
            try:
                return _place(plain, None, twos, jokers, forced, prefer, laying, ruleset, ace_ends)
            except IllegalMove:
                pass
            raise
    return _place(plain, None, twos, jokers, forced, prefer, laying, ruleset, ace_ends)


def _place(plain: list[Card], natural_two: Card | None, wild_twos: list[Card],
           jokers: list[Card], forced: Card | None, prefer: int, laying: bool,
           ruleset: Ruleset, ace_ends: tuple[int, ...] = ()) -> Meld:
    """Lay the cards out by position. ``ace_ends`` are the positions of aces already on the
    table (a lay-off): they keep them."""
    suit = plain[0].suit
    wilds = jokers + wild_twos
    if forced is not None:
        wilds.append(forced)
    if len(wilds) > 1:
        if any(w.rank == 0 for w in wilds):
            raise IllegalMove("joker_and_pinella")
        if laying and forced is not None:
            raise IllegalMove("pinella_cannot_heal")
        if all(w.suit != suit for w in wilds):
            raise IllegalMove("pinella_wrong_suit")
        raise IllegalMove("two_wilds")
    # Positions: 1 = low ace, 2..13, 14 = high ace.
    by_pos: dict[int, Card] = {}
    aces: list[Card] = []
    for c in plain:
        r = c.rank
        if r == 1:
            aces.append(c)
        elif r in by_pos:
            raise IllegalMove("duplicate_rank")
        else:
            by_pos[r] = c
    if natural_two is not None:
        by_pos[2] = natural_two
    if aces:
        if len(aces) > 2:
            raise IllegalMove("duplicate_rank")
        if len(aces) == 2:
            by_pos[1] = aces[0]
            by_pos[14] = aces[1]
        elif ace_ends:
            by_pos[ace_ends[0]] = aces[0]  # an ace on the table keeps its end
        elif not by_pos:
            by_pos[1] = aces[0]
        else:
            # The ace goes low or high, whichever keeps the run shorter; when both are as long
            # (2 to K), where it was listed: first is low, after the others is high.
            lo, hi = min(by_pos), max(by_pos)
            if hi - 1 != 14 - lo:
                by_pos[1 if hi - 1 < 14 - lo else 14] = aces[0]
            else:
                by_pos[1 if plain[0].rank == 1 else 14] = aces[0]
    positions = sorted(by_pos)
    first, last = positions[0], positions[-1]
    n_wild = len(wilds)
    if n_wild and prefer > 0 and prefer not in by_pos:
        # A wild already on the table keeps its place until its own card arrives.
        if max(last, prefer) - min(first, prefer) != len(positions):
            raise IllegalMove("gap_too_large")
        by_pos[prefer] = wilds[0]
        first, last = min(first, prefer), max(last, prefer)
        laid = tuple(by_pos[p] for p in range(first, last + 1))
        wild = prefer - first
        return Meld("sequence", laid, burraco_kind("sequence", len(laid), wild, ruleset),
                    sum(c.points for c in laid), wild, first, suit)
    gaps = last - first + 1 - len(positions)
    if gaps > n_wild:
        widest = max(b - a for a, b in zip(positions, positions[1:], strict=False)) - 1
        raise IllegalMove("gap_too_large" if widest > n_wild else "not_enough_wilds")
    if len(positions) + n_wild > MAX_MELD:
        raise IllegalMove("meld_size")
    wild_pos = None
    if n_wild:
        if gaps:
            wild_pos = next(p for p in range(first + 1, last) if p not in by_pos)
        else:
            top = last + 1 if last < 14 else None
            bottom = first - 1 if first > 1 else None
            own_two = wilds[0].rank == 2 and wilds[0].suit == suit
            if own_two and bottom == 2:
                # A 2 of the suit whose run now starts at the real 3 goes to its own place,
                # whichever end is free (RULES §4, amended 2026-12-07).
                wild_pos = 2
            elif prefer > 0 and prefer in (top, bottom):
                wild_pos = prefer
            elif prefer == BOTTOM and bottom is not None:
                wild_pos = bottom
            else:
                wild_pos = top if top is not None else bottom
        by_pos[wild_pos] = wilds[0]
        first = min(first, wild_pos)
        last = max(last, wild_pos)
        if wild_pos == 2 and wilds[0].rank == 2 and wilds[0].suit == suit:
            # A 2 of the suit that lands in its own place, below the real 3 (a wild sliding
            # there), is read as natural: the reading with fewest wilds (RULES §4).
            wild_pos = None
    laid = tuple(by_pos[p] for p in range(first, last + 1))
    wild = None if wild_pos is None else wild_pos - first
    return Meld("sequence", laid, burraco_kind("sequence", len(laid), wild, ruleset),
                sum(c.points for c in laid), wild, first, suit)


def _sort_by_kind(cards: Iterable[Card], plain: list[Card], twos: list[Card], jokers: list[Card]) -> None:
    """Append each card to the list of its kind: jokers, 2s (natural or wild, decided later), the rest."""
    for c in cards:
        r = c.rank
        if r == 0:
            jokers.append(c)
        elif r == 2:
            twos.append(c)
        else:
            plain.append(c)


# ---------------------------------------------------------------------- Burraco Reale (RULES §15)
#
# Reale reads a run exactly as §4 does (the 2s are the only wilds, one standing for another card,
# a second 2 only in its own place), so it reads with the classic rules and a ruleset without
# sets, then refuses what Reale has not (jokers, sets) and gives the meld Reale's burraco and points.

_REALE_READING = Ruleset(burraco_sets=False)


def reale_burraco(size: int, wild: int | None, low: int) -> str | None:
    """Which burraco a Reale sequence is, the highest that applies (RULES §15).

    >>> reale_burraco(14, None, 1), reale_burraco(13, None, 1), reale_burraco(13, None, 2)
    ('reale', 'nobile', 'pulito')
    >>> reale_burraco(14, 5, 1), reale_burraco(6, None, 1) is None
    ('sporco', True)
    """
    if size < 7:
        return None
    if wild is not None:
        return "sporco"
    if size == MAX_MELD:
        return "reale"
    if size == 13 and low == 1:
        return "nobile"  # ace to king, the ace low; 2 … K A is a plain pulito
    return "pulito"


def _check_reale_meld(given: list[Card], ruleset: Ruleset) -> Meld:
    """:func:`check_meld` in Burraco Reale.

    >>> r = Ruleset.preset("reale")
    >>> check_meld("5H 5S 5D", r)
    Traceback (most recent call last):
    ...
    games.engine.errors.IllegalMove: reale_no_sets: Nel Burraco Reale si calano solo scale: i tris non sono ammessi
    >>> m = check_meld("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", r)
    >>> m.burraco, m.bonus
    ('nobile', 500)
    """
    if any(c.is_joker for c in given):
        raise IllegalMove("reale_no_joker")
    ranks = {c.rank for c in given if c.rank != 2}
    if len(ranks) == 1 and sum(1 for c in given if c.rank != 2) >= 2:
        raise IllegalMove("reale_no_sets")  # two or more naturals of one rank: only a set
    meld = check_meld(given, _REALE_READING)
    if meld.kind == "set":
        raise IllegalMove("reale_no_sets")
    return _as_reale(meld, ruleset)


def _lay_off_reale(meld: Meld, cards: Sequence[Card], ruleset: Ruleset) -> Meld:
    """:func:`lay_off` in Burraco Reale."""
    if any(c.is_joker for c in cards):
        raise IllegalMove("reale_no_joker")
    return _as_reale(lay_off(meld, cards, _REALE_READING), ruleset)


def _as_reale(meld: Meld, ruleset: Ruleset) -> Meld:
    """The meld with Reale's burraco and each 2 counted ``pinella_points``."""
    burraco = reale_burraco(len(meld.cards), meld.wild, meld.low)
    points = sum(ruleset.card_points(c) for c in meld.cards)
    return Meld(meld.kind, meld.cards, burraco, points, meld.wild, meld.low, meld.suit, meld.id)
