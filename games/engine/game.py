"""The game state machine: deal, turns, pozzetti, closing, stock exhaustion, scoring, matches.

A game is its deal plus the actions applied to it: :attr:`Game.deal` and :attr:`Game.actions`
are JSON-ready, and :func:`replay` rebuilds the live game from them. Every action is checked in
full before anything changes, so a refused action (:class:`IllegalMove`) leaves the game as it
was.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from .cards import Card, cards_text, parse_cards
from .deal import FairSeed, lay_out
from .errors import IllegalMove
from .melds import Meld, check_meld, lay_off
from .rules import END_AT_TWO, POZZETTO_BECOMES_STOCK, REALE, Ruleset

try:  # the engine needs only the standard library; orjson, when installed, is the same JSON faster
    import orjson
except ImportError:  # pragma: no cover - the site installs it
    orjson = None

CLOSING_BONUS = 100
POZZETTO_PENALTY = 100

AVAILABLE = "available"
TAKEN = "taken"
BECAME_STOCK = "became_stock"

DRAW = "draw"
PLAY = "play"
OVER = "over"

ACTION_TYPES = ("draw", "take_discards", "meld", "lay_off", "discard")

Action = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Match:
    """Where a match stands after (or during) one hand.

    ``totals`` include the hand once it is over. ``finished`` tells whether the match is decided;
    ``winner`` is the winning side (None for a tie of a single-hand table or while unfinished).
    """

    target: int | None
    hand_number: int
    totals: tuple[int, int]
    finished: bool
    winner: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "hand_number": self.hand_number,
                "totals": list(self.totals), "finished": self.finished, "winner": self.winner}


def match_result(target: int | None, totals: Sequence[int]) -> tuple[bool, int | None]:
    """Whether a match with these totals is over, and who won (RULES §10).

    >>> match_result(None, [120, 120])         # single hand: a tie is possible
    (True, None)
    >>> match_result(505, [510, 300])
    (True, 0)
    >>> match_result(505, [600, 640])          # both passed: the higher total wins
    (True, 1)
    >>> match_result(505, [600, 600])          # exact tie: one more hand
    (False, None)
    """
    a, b = totals
    if target is None:
        return True, (None if a == b else (0 if a > b else 1))
    if max(a, b) >= target and a != b:
        return True, (0 if a > b else 1)
    return False, None


def _copy(obj: Any) -> Any:
    """Deep copy of JSON-like data (faster than copy.deepcopy)."""
    if isinstance(obj, list):
        return [_copy(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _copy(v) for k, v in obj.items()}
    return obj


def _texts_or_none(cards: list[Card] | None) -> list[str] | None:
    return None if cards is None else [c.text for c in cards]


def _cards_arg(value: Any) -> list[Card]:
    if isinstance(value, str) or isinstance(value, (list, tuple)):
        return parse_cards(value)
    raise IllegalMove("bad_action")


class Game:
    """One hand of Burraco for 2 or 4 players (seats 0..n-1; seats 0 and 2 are side 0).

    >>> g = Game.setup(Ruleset.preset("classico"), hands=["7H 8H 9H KD", "5S 5D QS"],
    ...                stock="QC TS 4C 5C 6C", discard="QD", to_move=0)
    >>> g.apply(0, {"type": "draw"})
    >>> g.view(0)["hand"]
    ['7H', '8H', '9H', 'KD', 'QC']
    >>> g.apply(0, {"type": "meld", "cards": ["7H", "8H", "9H"]})
    >>> g.apply(0, {"type": "discard", "card": "KD"})
    >>> g.to_move, [str(c) for c in g.melds(0)[0].cards]
    (1, ['7H', '8H', '9H'])
    >>> replay(g.deal, g.actions) == g
    True
    """

    __slots__ = ("ruleset", "players", "hands", "stock", "discard_pile", "pozzetti",
                 "pozzetto_state", "table", "next_meld_id", "to_move", "phase", "picked",
                 "last_round", "unplayed", "closed_by", "end_reason", "hand_number", "totals",
                 "match_first", "_deal", "actions")

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, ruleset: Ruleset, rng: random.Random | None = None, *,
            first_player: int | None = None, totals: Sequence[int] = (0, 0),
            hand_number: int = 0, match_first: int | None = None, fair: FairSeed | None = None) -> Game:
        """Shuffle and deal a hand (RULES §2).

        ``rng`` defaults to :class:`secrets.SystemRandom` (pass ``random.Random(seed)`` in tests).
        With ``fair`` the cards' order is the one its seed gives (games/engine/deal.py) and the
        deal records its ``commitment`` (the seed's hash and the client seeds, never the seed);
        ``rng`` then only draws the first player.
        The first player of a match is drawn by lot; later hands rotate, see :meth:`next_hand`.

        >>> g = Game.new(Ruleset.preset("classico", players=4), rng=random.Random(7))
        >>> [len(h) for h in g.deal["hands"]], len(g.deal["stock"]), len(g.deal["discard"])
        ([11, 11, 11, 11], 41, 1)
        """
        rng = rng or secrets.SystemRandom()
        n = ruleset.players
        if fair is None:
            deck = ruleset.deck()
            rng.shuffle(deck)
        else:
            deck = fair.deck(ruleset.deck())
        if match_first is None:
            match_first = rng.randrange(n) if first_player is None else first_player
        if first_player is None:
            first_player = (match_first + hand_number) % n
        piles = lay_out(cards_text(deck), n)
        deal = {
            "ruleset": ruleset.to_dict(), "hands": piles["hands"], "stock": piles["stock"],
            "discard": piles["discard"], "pozzetti": piles["pozzetti"], "melds": [[], []],
            "to_move": first_player, "hand_number": hand_number, "totals": list(totals),
            "match_first": match_first,
        }
        if fair is not None:
            deal["commitment"] = fair.commitment()
        return cls._from_deal(deal)

    @classmethod
    def setup(cls, ruleset: Ruleset, hands: Sequence[str | Sequence[str]],
              stock: str | Sequence[str] = (), discard: str | Sequence[str] = (),
              pozzetti: Sequence[str | Sequence[str] | None] | None = None,
              melds: Sequence[Sequence[str | Sequence[str]]] | None = None,
              to_move: int = 0, *, hand_number: int = 0, totals: Sequence[int] = (0, 0),
              match_first: int | None = None) -> Game:
        """An exact position: stock top card first, discard bottom first, pozzetti per side
        (None = already taken), melds per side; seat ``to_move`` is about to draw.

        Cards left out of the position simply do not exist in it (tests need small positions).
        """
        n = ruleset.players
        if len(hands) != n or not (0 <= to_move < n):
            raise IllegalMove("bad_position")
        if pozzetti is None:
            pozzetti = [None, None]
        if melds is None:
            melds = [[], []]
        if len(pozzetti) != 2 or len(melds) != 2:
            raise IllegalMove("bad_position")
        deal = {
            "ruleset": ruleset.to_dict(),
            "hands": [cards_text(parse_cards(h)) for h in hands],
            "stock": cards_text(parse_cards(stock)),
            "discard": cards_text(parse_cards(discard)),
            "pozzetti": [None if p is None else cards_text(parse_cards(p)) for p in pozzetti],
            "melds": [[cards_text(parse_cards(m)) for m in side] for side in melds],
            "to_move": to_move, "hand_number": hand_number, "totals": list(totals),
            "match_first": (to_move - hand_number) % n if match_first is None else match_first,
        }
        return cls._from_deal(deal)

    @classmethod
    def _from_deal(cls, deal: dict[str, Any]) -> Game:
        try:
            ruleset = Ruleset.from_dict(deal["ruleset"])
            g = cls.__new__(cls)
            g.ruleset = ruleset
            g.players = ruleset.players
            g.hands = [parse_cards(h) for h in deal["hands"]]
            g.stock = parse_cards(deal["stock"])[::-1]  # kept top-last so a draw is a pop()
            g.discard_pile = parse_cards(deal["discard"])
            g.pozzetti = [None if p is None else parse_cards(p) for p in deal["pozzetti"]]
            g.pozzetto_state = [AVAILABLE if p is not None else TAKEN for p in g.pozzetti]
            g.table = [[], []]
            g.next_meld_id = 1
            for side, side_melds in enumerate(deal["melds"]):
                for cards in side_melds:
                    m = check_meld(parse_cards(cards), ruleset)
                    g.table[side].append(_with_id(m, g.next_meld_id))
                    g.next_meld_id += 1
            g.to_move = int(deal["to_move"])
            g.phase = DRAW
            g.picked = None
            g.last_round = False
            g.unplayed = [None, None]
            g.closed_by = None
            g.end_reason = None
            g.hand_number = int(deal["hand_number"])
            g.totals = (int(deal["totals"][0]), int(deal["totals"][1]))
            g.match_first = int(deal["match_first"])
            g._deal = _copy(deal)
            g.actions = []
        except IllegalMove:
            raise
        except (KeyError, TypeError, ValueError, IndexError):
            raise IllegalMove("bad_position") from None
        if len(g.hands) != g.players or len(g.pozzetti) != 2 or not 0 <= g.to_move < g.players:
            raise IllegalMove("bad_position")
        g._check_card_counts()
        g._start_turn()
        return g

    def _check_card_counts(self) -> None:
        counts: dict[str, int] = {}
        piles = [*self.hands, self.stock, self.discard_pile, *self.table[0], *self.table[1],
                 *(p for p in self.pozzetti if p is not None)]
        for pile in piles:
            for c in (pile.cards if isinstance(pile, Meld) else pile):
                counts[c.text] = counts.get(c.text, 0) + 1
        jokers = 4 if self.ruleset.variant != REALE else 0  # Burraco Reale has none (§15)
        for text, k in counts.items():
            if k > (jokers if text == "JK" else 2):
                raise IllegalMove("bad_position")

    # ------------------------------------------------------------------ reading

    @property
    def deal(self) -> dict[str, Any]:
        """The starting position, JSON-ready: replay(g.deal, g.actions) rebuilds the game."""
        return _copy(self._deal)

    @property
    def commitment(self) -> str | None:
        """The SHA-256 of the hand's secret seed, announced to every seat; None for a hand dealt
        without one (an old hand, a test's position)."""
        recorded = self._deal.get("commitment")
        return recorded.get("hash") if isinstance(recorded, dict) else None

    @property
    def next_commitment(self) -> str | None:
        """The SHA-256 of the seed already drawn for the next hand (docs/fairness.md), or None."""
        recorded = self._deal.get("commitment")
        return recorded.get("next_hash") if isinstance(recorded, dict) else None

    @property
    def hand_over(self) -> bool:
        return self.phase == OVER

    @property
    def first_player(self) -> int:
        return int(self._deal["to_move"])

    def melds(self, side: int) -> list[Meld]:
        """The side's melds on the table, in the order they were opened."""
        return list(self.table[side])

    def hand(self, seat: int) -> list[Card]:
        return list(self.hands[seat])

    def has_burraco(self, side: int) -> bool:
        """Whether the side has a burraco that lets it close (in Burraco Reale a clean one)."""
        closes_with = self.ruleset.closes_with
        return any(closes_with(m.burraco) for m in self.table[side])

    def close_blocker(self, side: int) -> str | None:
        """Why the side could not close now (a code), or None when it could (RULES §7)."""
        if self.pozzetto_state[side] == AVAILABLE:
            return "pozzetto_required_to_close"
        if not self.has_burraco(side):
            return self.ruleset.refusal("burraco_required")
        return None

    def score(self) -> list[dict[str, int]]:
        """Per side: melds, burraco, closing, hand (<= 0), pozzetto (<= 0) and total (RULES §9).

        While the hand is running this is the score as it would stand if it ended now,
        except that a pozzetto taken with the discard still counts as taken.
        """
        over = self.phase == OVER
        result = []
        for side in (0, 1):
            table = self.table[side]
            melds = sum(m.points for m in table)
            burraco = sum(m.bonus for m in table)
            closing = CLOSING_BONUS if self.closed_by is not None and self.closed_by % 2 == side else 0
            unplayed = self.unplayed[side] if (over and self.ruleset.pozzetto_must_be_played) else None
            hand = 0
            for seat in range(side, self.players, 2):
                if seat != unplayed:  # an unplayed pozzetto's cards count for nobody
                    hand -= sum(map(self.ruleset.card_points, self.hands[seat]))
            taken = self.pozzetto_state[side] == TAKEN and unplayed is None
            pozzetto = 0 if taken else -POZZETTO_PENALTY
            result.append({"melds": melds, "burraco": burraco, "closing": closing, "hand": hand,
                           "pozzetto": pozzetto,
                           "total": melds + burraco + closing + hand + pozzetto})
        return result

    @property
    def match(self) -> Match:
        """The match after this hand (totals include the hand once it is over)."""
        target = self.ruleset.target
        if self.phase != OVER:
            return Match(target, self.hand_number, self.totals, False, None)
        s = self.score()
        totals = (self.totals[0] + s[0]["total"], self.totals[1] + s[1]["total"])
        finished, winner = match_result(target, totals)
        if self.ruleset.hands is not None:  # a fixed number of hands (duplicate): the last one ends it
            finished = self.hand_number + 1 >= self.ruleset.hands
        return Match(target, self.hand_number, totals, finished, winner if finished else None)

    def next_hand(self, rng: random.Random | None = None, *, fair: FairSeed | None = None) -> Game:
        """Deal the next hand of the match: totals carried, first player rotated
        (hand n starts with seat (first + n) mod players); ``fair`` as in :meth:`new`."""
        if self.phase != OVER:
            raise IllegalMove("hand_not_over")
        m = self.match
        if m.finished:
            raise IllegalMove("match_over")
        return Game.new(self.ruleset, rng, totals=m.totals, hand_number=self.hand_number + 1,
                        match_first=self.match_first, fair=fair)

    # ------------------------------------------------------------------ views

    def public_view(self) -> dict[str, Any]:
        """What everybody at the table (and a spectator) may see: no hand's cards, no stock
        order, no pozzetto contents."""
        over = self.phase == OVER
        view = {
            "players": self.players,
            "to_move": None if over else self.to_move,
            "phase": self.phase,
            "hand_counts": [len(h) for h in self.hands],
            "stock_count": len(self.stock),
            "discard": [c.text for c in self.discard_pile],
            "melds": [[m.view_dict() for m in side] for side in self.table],
            "pozzetti": list(self.pozzetto_state),
            "picked_single_card": None if self.picked is None else self.picked.text,
            "last_round": self.last_round,
            "hand_over": over,
            "end_reason": self.end_reason,
            "closed_by": self.closed_by,
            "score": self.score() if over else None,
            "ruleset": self.ruleset.to_dict(),
            "hand_number": self.hand_number,
            "totals": list(self.totals),
            "match": self.match.to_dict() if over else None,
            "version": len(self.actions),
            "commitment": self.commitment,
            "next_commitment": self.next_commitment,
        }
        return view

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: :meth:`public_view` plus its own hand and what it may do."""
        if not (isinstance(seat, int) and 0 <= seat < self.players):
            raise IllegalMove("bad_action")
        view = self.public_view()
        side = seat % 2
        my_turn = self.phase != OVER and seat == self.to_move
        blocker = self.close_blocker(side)
        view["seat"] = seat
        view["side"] = side
        view["hand"] = [c.text for c in self.hands[seat]]
        view["my_turn"] = my_turn
        view["can_close"] = blocker is None and self.phase != OVER
        view["close_blocker"] = blocker
        if not my_turn:
            allowed: list[str] = []
        elif self.phase == DRAW:
            allowed = (["draw"] if self.stock else []) + (["take_discards"] if self.discard_pile else [])
        else:
            allowed = ["meld", "lay_off", "discard"]
        view["allowed"] = allowed
        return view

    def public_record(self) -> list[dict[str, Any]]:
        """What everybody at the table has seen happen in this hand, in order: who drew from the
        stock (not which card), who took the discard pile and the cards in it, every meld and
        lay-off, every discard, who took a pozzetto (not its cards: they show when played) and a
        pozzetto that became the stock. The same list whichever seat (or spectator) asks.

        Each entry has ``seat`` (None for ``pozzetto_stock``) and ``type``: ``draw``;
        ``take_discards`` with ``cards`` (the pile, bottom first); ``meld`` and ``lay_off`` with
        ``meld`` (its id) and ``cards``; ``discard`` with ``card``; ``pozzetto`` with ``side``
        and ``how`` (``in_play``: the hand melded out, ``with_discard``: on the last discard);
        ``pozzetto_stock`` with ``side``. It is worked out from :attr:`deal` and :attr:`actions`
        alone, so a game restored by :meth:`from_dict` or :func:`replay` gives the same record.
        Computer players receive it beside their view (views themselves carry no history).

        >>> g = Game.setup(Ruleset.preset("classico"), hands=["7H 8H 9H KD", "5S 5D QS"],
        ...                stock="QC TS 4C 5C 6C", discard="QD", to_move=0)
        >>> for a in ({"type": "draw"}, {"type": "meld", "cards": ["7H", "8H", "9H"]},
        ...           {"type": "discard", "card": "KD"}, {"type": "take_discards"}):
        ...     g.apply(g.to_move, a)
        >>> [(e["seat"], e["type"], e.get("cards", e.get("card"))) for e in g.public_record()]
        [(0, 'draw', None), (0, 'meld', ['7H', '8H', '9H']), (0, 'discard', 'KD'), (1, 'take_discards', ['QD', 'KD'])]
        """
        return _public_record(self._deal, self.actions)

    # ------------------------------------------------------------------ serialising

    def to_dict(self, *, copy: bool = True) -> dict[str, Any]:
        """The whole game, JSON-ready; :meth:`from_dict` restores it exactly. With ``copy``
        false the deal and the action records are this game's own (to serialise at once)."""
        return {
            "format": 1,
            "deal": _copy(self._deal) if copy else self._deal,
            "actions": _copy(self.actions) if copy else self.actions,
            "state": {
                "hands": [[c.text for c in h] for h in self.hands],
                "stock": [c.text for c in reversed(self.stock)],
                "discard": [c.text for c in self.discard_pile],
                "pozzetti": [_texts_or_none(p) for p in self.pozzetti],
                "pozzetto_state": list(self.pozzetto_state),
                "melds": [[m.to_dict() | {"low": m.low, "suit": m.suit} for m in side]
                          for side in self.table],
                "next_meld_id": self.next_meld_id,
                "to_move": self.to_move,
                "phase": self.phase,
                "picked": None if self.picked is None else self.picked.text,
                "last_round": self.last_round,
                "unplayed": list(self.unplayed),
                "closed_by": self.closed_by,
                "end_reason": self.end_reason,
            },
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON text, without the defensive copies (the play path
        writes it straight to the database).

        >>> g = Game.setup(Ruleset.preset("classico"), hands=["7H 8H 9H", "KD QS"], stock="AS 4C",
        ...                discard="QD", to_move=0)
        >>> Game.from_json(g.to_json()) == g
        True
        """
        data = self.to_dict(copy=False)
        if orjson is not None:
            return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Game:
        """The game :meth:`to_json` wrote. Raises IllegalMove("bad_position") for text that is
        not a game."""
        try:
            data = orjson.loads(text) if orjson is not None else json.loads(text)
        except ValueError:  # orjson's JSONDecodeError is one too
            raise IllegalMove("bad_position") from None
        return cls._restore(data, copy=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """The game :meth:`to_dict` gave (``data`` is copied: the caller may go on using it)."""
        return cls._restore(data, copy=True)

    @classmethod
    def _restore(cls, data: dict[str, Any], *, copy: bool) -> Game:
        try:
            deal = data["deal"]
            st = data["state"]
            g = cls.__new__(cls)
            g.ruleset = Ruleset.from_dict(deal["ruleset"])
            g.players = g.ruleset.players
            g.hands = [parse_cards(h) for h in st["hands"]]
            g.stock = parse_cards(st["stock"])[::-1]
            g.discard_pile = parse_cards(st["discard"])
            g.pozzetti = [None if p is None else parse_cards(p) for p in st["pozzetti"]]
            g.pozzetto_state = list(st["pozzetto_state"])
            g.table = [[Meld(m["kind"], tuple(parse_cards(m["cards"])), m["burraco"], m["points"],
                             m["wild"], m["low"], m["suit"], m["id"]) for m in side]
                       for side in st["melds"]]
            g.next_meld_id = st["next_meld_id"]
            g.to_move = st["to_move"]
            g.phase = st["phase"]
            g.picked = None if st["picked"] is None else Card.parse(st["picked"])
            g.last_round = st["last_round"]
            g.unplayed = list(st["unplayed"])
            g.closed_by = st["closed_by"]
            g.end_reason = st["end_reason"]
            g.hand_number = int(deal["hand_number"])
            g.totals = (int(deal["totals"][0]), int(deal["totals"][1]))
            g.match_first = int(deal["match_first"])
            g._deal = _copy(deal) if copy else deal
            g.actions = _copy(data["actions"]) if copy else list(data["actions"])
        except IllegalMove:
            raise
        except (KeyError, TypeError, ValueError, IndexError):
            raise IllegalMove("bad_position") from None
        return g

    @classmethod
    def from_view(cls, view: dict[str, Any], *, hands: Sequence[Sequence[str]], stock: Sequence[str],
                  pozzetti: Sequence[Sequence[str] | None]) -> Game:
        """A complete game consistent with ``view`` (what one seat sees), the cards it hides
        given: every other seat's hand (``hands[view["seat"]]`` is ignored: the view's own is
        used), the stock top first, and each side's pozzetto (None once taken). Computer players
        deal the hidden cards as they guess them and play on the result.

        >>> g = Game.setup(Ruleset.preset("classico"), hands=["7H 8H 9H", "KD QS"], stock="AS 4C",
        ...                discard="QD", to_move=0)
        >>> guess = Game.from_view(g.view(0), hands=[[], ["KD", "QS"]], stock=["AS", "4C"],
        ...                        pozzetti=g.position()["pozzetti"])
        >>> guess.view(0) == g.view(0), guess.position()["hands"] == g.position()["hands"]
        (True, True)
        """
        try:
            seat = view["seat"]
            ruleset = Ruleset.from_dict(view["ruleset"])
            all_hands = [list(view["hand"]) if s == seat else list(h) for s, h in enumerate(hands)]
            to_move = view["to_move"] if view["to_move"] is not None else seat
            g = cls.__new__(cls)
            g.ruleset, g.players = ruleset, ruleset.players
            g.hands = [parse_cards(h) for h in all_hands]
            g.stock = parse_cards(list(stock))[::-1]
            g.discard_pile = parse_cards(view["discard"])
            g.pozzetti = [None if p is None else parse_cards(p) for p in pozzetti]
            g.pozzetto_state = list(view["pozzetti"])
            g.table = [[Meld.from_dict(m) for m in side] for side in view["melds"]]
            g.next_meld_id = max([m.id for side in g.table for m in side], default=0) + 1
            g.to_move, g.phase = to_move, view["phase"]
            picked = view.get("picked_single_card")
            g.picked = None if picked is None else Card.parse(picked)
            g.last_round = bool(view.get("last_round"))
            g.unplayed = [None, None]
            g.closed_by, g.end_reason = view.get("closed_by"), view.get("end_reason")
            g.hand_number = int(view.get("hand_number", 0))
            totals = view.get("totals", [0, 0])
            g.totals = (int(totals[0]), int(totals[1]))
            g.match_first = 0
            g._deal = {"ruleset": view["ruleset"], "hands": all_hands, "stock": list(stock),
                       "discard": list(view["discard"]), "pozzetti": [None if p is None else list(p) for p in pozzetti],
                       "melds": [[], []], "to_move": to_move, "hand_number": g.hand_number,
                       "totals": list(g.totals), "match_first": 0}
            g.actions = []
        except IllegalMove:
            raise
        except (KeyError, TypeError, ValueError, IndexError):
            raise IllegalMove("bad_position") from None
        return g

    def copy(self) -> Game:
        """An independent game in the same position: playing on the copy leaves this one as it
        is (computer players try moves on copies).

        >>> g = Game.setup(Ruleset.preset("classico"), hands=["7H 8H 9H", "KD QS"], stock="AS 4C",
        ...                discard="QD", to_move=0)
        >>> c = g.copy(); c.apply(0, {"type": "draw"})
        >>> len(g.actions), len(c.actions), c == g
        (0, 1, False)
        """
        g = Game.__new__(Game)
        g.ruleset, g.players = self.ruleset, self.players
        g.hands = [list(h) for h in self.hands]
        g.stock = list(self.stock)
        g.discard_pile = list(self.discard_pile)
        g.pozzetti = [None if p is None else list(p) for p in self.pozzetti]
        g.pozzetto_state = list(self.pozzetto_state)
        g.table = [list(side) for side in self.table]  # melds are frozen: sharing them is safe
        g.next_meld_id, g.to_move, g.phase, g.picked = self.next_meld_id, self.to_move, self.phase, self.picked
        g.last_round, g.unplayed = self.last_round, list(self.unplayed)
        g.closed_by, g.end_reason = self.closed_by, self.end_reason
        g.hand_number, g.totals, g.match_first = self.hand_number, self.totals, self.match_first
        g._deal = self._deal  # never changed after the deal; readers get copies
        g.actions = list(self.actions)  # records are never changed once made
        return g

    def is_legal(self, seat: int, action: Action) -> bool:
        """Would :meth:`apply` accept ``action`` for ``seat``? The game is not changed.

        >>> g = Game.setup(Ruleset.preset("classico"), hands=["7H 8H 9H", "KD QS"], stock="AS 4C",
        ...                discard="QD", to_move=0)
        >>> g.is_legal(0, {"type": "draw"}), g.is_legal(0, {"type": "discard", "card": "7H"})
        (True, False)
        """
        try:
            self.copy().apply(seat, action)
        except IllegalMove:
            return False
        return True

    def position(self) -> dict[str, Any]:
        """The whole position with every card face up: each hand, the melds, the pile, the stock
        (top first), the pozzetti. For replays of finished hands and for audits, never for a
        player (a player gets :meth:`view`)."""
        return {
            "hands": [[c.text for c in h] for h in self.hands],
            "melds": [[m.to_dict() for m in side] for side in self.table],
            "discard": [c.text for c in self.discard_pile],
            "stock": [c.text for c in reversed(self.stock)],
            "pozzetti": [_texts_or_none(p) for p in self.pozzetti],
            "pozzetto_state": list(self.pozzetto_state),
            "to_move": self.to_move,
            "phase": self.phase,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (f"<Game {self.ruleset.preset_name} {self.players}p hand {self.hand_number} "
                f"to_move={self.to_move} phase={self.phase} actions={len(self.actions)}>")

    # ------------------------------------------------------------------ playing

    def apply(self, seat: int, action: Action) -> None:
        """Play ``action`` for ``seat``; raise :class:`IllegalMove` and change nothing if it is
        not allowed. The action is recorded in :attr:`actions` in a canonical form."""
        if not isinstance(action, dict):
            raise IllegalMove("bad_action")
        kind = action.get("type")
        if kind not in ACTION_TYPES:
            raise IllegalMove("bad_action")
        if self.phase == OVER:
            raise IllegalMove("hand_over")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise IllegalMove("bad_action")
        if seat != self.to_move:
            raise IllegalMove("not_your_turn")
        if kind == "draw" or kind == "take_discards":
            if self.phase != DRAW:
                raise IllegalMove("already_drawn")
            record = self._draw(seat) if kind == "draw" else self._take_discards(seat)
        else:
            if self.phase == DRAW:
                raise IllegalMove("must_draw_first")
            if kind == "meld":
                record = self._meld(seat, action)
            elif kind == "lay_off":
                record = self._lay_off(seat, action)
            else:
                record = self._discard(seat, action)
        self.actions.append(record)

    def _draw(self, seat: int) -> Action:
        if not self.stock:
            raise IllegalMove("stock_empty")
        self.hands[seat].append(self.stock.pop())
        if self.ruleset.stock_exhausted == END_AT_TWO and len(self.stock) <= 2:
            self.last_round = True  # the hand ends after this player's discard
        self.phase = PLAY
        return {"type": "draw"}

    def _take_discards(self, seat: int) -> Action:
        pile = self.discard_pile
        if not pile:
            raise IllegalMove("discard_pile_empty")
        self.picked = pile[0] if len(pile) == 1 else None
        self.hands[seat].extend(pile)
        self.discard_pile = []
        self.phase = PLAY
        return {"type": "take_discards"}

    def _remove_from_hand(self, seat: int, cards: list[Card]) -> list[Card]:
        rest = list(self.hands[seat])
        for c in cards:
            try:
                rest.remove(c)
            except ValueError:
                raise IllegalMove("card_not_in_hand") from None
        return rest

    def outcome_of_play(self, seat: int, rest: list[Card], burraco_after: bool) -> str:
        """Check what a meld or lay-off leaves in hand (RULES §3, §6, §7); say what follows:
        'play' on, take the pozzetto 'in diretta', or 'close'."""
        n = len(rest)
        if n > 1:
            return "play"
        side = seat % 2
        done = self.pozzetto_state[side] != AVAILABLE
        if n == 0:
            if not done:
                return "pozzetto"
            if not self.ruleset.close_by_melding:
                raise IllegalMove("cannot_meld_all_after_pozzetto")
            if not burraco_after:
                raise IllegalMove(self.ruleset.refusal("burraco_required"))
            return "close"
        last = rest[0]
        if self.picked is not None and last == self.picked:
            raise IllegalMove("last_card_from_discard")
        if done:
            if last.is_wild:
                raise IllegalMove("single_wild_left")
            if not burraco_after:
                raise IllegalMove(self.ruleset.refusal("single_card_without_burraco"))
        return "play"

    def _meld(self, seat: int, action: Action) -> Action:
        cards = _cards_arg(action.get("cards"))
        rest = self._remove_from_hand(seat, cards)
        meld = check_meld(cards, self.ruleset)
        side = seat % 2
        if meld.kind == "set" and any(m.kind == "set" and m.low == meld.low
                                      for m in self.table[side]):
            raise IllegalMove("duplicate_set")
        outcome = self.outcome_of_play(seat, rest, self.ruleset.closes_with(meld.burraco) or self.has_burraco(side))
        self.table[side].append(_with_id(meld, self.next_meld_id))
        self.next_meld_id += 1
        self._finish_play(seat, rest, outcome)
        return {"type": "meld", "cards": cards_text(cards)}

    def _lay_off(self, seat: int, action: Action) -> Action:
        meld_id = action.get("meld")
        if "card" in action and "cards" not in action:
            cards = _cards_arg([action["card"]])
        else:
            cards = _cards_arg(action.get("cards"))
        if not isinstance(meld_id, int) or isinstance(meld_id, bool):
            raise IllegalMove("bad_action")
        side = seat % 2
        table = self.table[side]
        index = next((i for i, m in enumerate(table) if m.id == meld_id), None)
        if index is None:
            raise IllegalMove("unknown_meld")
        rest = self._remove_from_hand(seat, cards)
        new = lay_off(table[index], cards, self.ruleset)
        burraco_after = self.ruleset.closes_with(new.burraco) or any(
            self.ruleset.closes_with(m.burraco) for i, m in enumerate(table) if i != index)
        outcome = self.outcome_of_play(seat, rest, burraco_after)
        table[index] = new
        self._finish_play(seat, rest, outcome)
        return {"type": "lay_off", "meld": meld_id, "cards": cards_text(cards)}

    def _finish_play(self, seat: int, rest: list[Card], outcome: str) -> None:
        side = seat % 2
        if outcome == "pozzetto":  # in diretta: take it and play on without drawing
            self.hands[seat] = self.pozzetti[side]
            self.pozzetti[side] = None
            self.pozzetto_state[side] = TAKEN
            self.picked = None
            return
        self.hands[seat] = rest
        if outcome == "close":
            self.closed_by = seat
            self._end("closed")

    def _discard(self, seat: int, action: Action) -> Action:
        text = action.get("card")
        if not isinstance(text, str):
            raise IllegalMove("bad_action")
        card = Card.parse(text)
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalMove("card_not_in_hand")
        if self.picked is not None and card == self.picked and hand.count(card) == 1:
            raise IllegalMove("discard_picked_card")
        side = seat % 2
        record = {"type": "discard", "card": card.text}
        if len(hand) == 1:
            if self.pozzetto_state[side] == AVAILABLE:  # con lo scarto: play it next turn
                self.discard_pile.append(card)
                self.hands[seat] = self.pozzetti[side]
                self.pozzetti[side] = None
                self.pozzetto_state[side] = TAKEN
                self.unplayed[side] = seat
            else:
                if not self.has_burraco(side):
                    raise IllegalMove(self.ruleset.refusal("burraco_required"))
                if card.is_wild:
                    raise IllegalMove("wild_closing_discard")
                self.discard_pile.append(card)
                hand.clear()
                self.closed_by = seat
                self._end("closed")
                return record
        else:
            hand.remove(card)
            self.discard_pile.append(card)
        if self.last_round:
            self._end("stock_exhausted")
        else:
            self._next_turn()
        return record

    def _next_turn(self) -> None:
        self.to_move = (self.to_move + 1) % self.players
        self.phase = DRAW
        self.picked = None
        self._start_turn()

    def _start_turn(self) -> None:
        side = self.to_move % 2
        if self.unplayed[side] == self.to_move:
            self.unplayed[side] = None  # the pozzetto reached its owner's turn: it counts
        if self.stock:
            return
        if self.ruleset.stock_exhausted == POZZETTO_BECOMES_STOCK:
            for s in (side, 1 - side):  # the drawing side's own pozzetto first
                if self.pozzetto_state[s] == AVAILABLE:
                    self.stock = self.pozzetti[s][::-1]
                    self.pozzetti[s] = None
                    self.pozzetto_state[s] = BECAME_STOCK
                    return
        self._end("stock_exhausted")

    def _end(self, reason: str) -> None:
        self.phase = OVER
        self.end_reason = reason
        self.picked = None

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, seat: int, kinds: Sequence[str] = ACTION_TYPES) -> Iterator[Action]:
        """Every draw, every discard, every legal meld of 3 cards from the hand and every legal
        single-card lay-off for ``seat`` (nothing when it is not that seat's turn).

        ``kinds`` limits the search to some action types (a bot that only wants a discard
        need not look for melds)."""
        if self.phase == OVER or seat != self.to_move:
            return
        if self.phase == DRAW:
            if self.stock:
                yield {"type": "draw"}
            if self.discard_pile:
                yield {"type": "take_discards"}
            return
        hand = self.hands[seat]
        side = seat % 2
        distinct: dict[str, Card] = {}
        counts: dict[str, int] = {}
        for c in hand:
            distinct.setdefault(c.text, c)
            counts[c.text] = counts.get(c.text, 0) + 1
        size = len(hand)
        ruleset = self.ruleset
        table = self.table[side]
        side_burraco = self.has_burraco(side)
        # Lay-offs, one card at a time.
        for index, meld in enumerate(table if "lay_off" in kinds else ()):
            for c in distinct.values():
                if not meld.could_take(c):
                    continue
                try:
                    new = lay_off(meld, [c], ruleset)
                except IllegalMove:
                    continue
                if size <= 2:
                    rest = list(hand)
                    rest.remove(c)
                    after = ruleset.closes_with(new.burraco) or any(
                        ruleset.closes_with(m.burraco) for i, m in enumerate(table) if i != index)
                    try:
                        self.outcome_of_play(seat, rest, after)
                    except IllegalMove:
                        continue
                yield {"type": "lay_off", "meld": meld.id, "cards": [c.text]}
        # New melds of three cards.
        if size >= 3 and "meld" in kinds:
            set_ranks = {m.low for m in table if m.kind == "set"}
            for meld in _three_card_melds(distinct, counts, ruleset):
                if meld.kind == "set" and meld.low in set_ranks:
                    continue
                if size <= 4:
                    rest = list(hand)
                    for c in meld.cards:
                        rest.remove(c)
                    try:
                        self.outcome_of_play(seat, rest, side_burraco)
                    except IllegalMove:
                        continue
                yield {"type": "meld", "cards": meld.texts()}
        # Discards.
        if "discard" not in kinds:
            return
        picked = self.picked
        for text, c in distinct.items():
            if picked is not None and c == picked and counts[text] == 1:
                continue
            if size == 1 and self.pozzetto_state[side] != AVAILABLE and (
                    not side_burraco or c.is_wild):
                continue
            yield {"type": "discard", "card": text}


def _public_record(deal: dict[str, Any], actions: Sequence[Action]) -> list[dict[str, Any]]:
    """:meth:`Game.public_record` from a deal and its actions. Only what every seat sees is
    followed (the pile, the hand sizes, the stock's size, which pozzetti are left), never a
    hidden card; the actions are the engine's own canonical records, so they are legal."""
    ruleset = Ruleset.from_dict(deal["ruleset"])
    n = ruleset.players
    counts = [len(h) for h in deal["hands"]]
    pile = list(deal["discard"])
    stock = len(deal["stock"])
    sizes = [None if p is None else len(p) for p in deal["pozzetti"]]
    available = [p is not None for p in deal["pozzetti"]]
    next_id = 1 + sum(len(side) for side in deal["melds"])
    seat = int(deal["to_move"])
    record: list[dict[str, Any]] = []

    def start_turn() -> None:
        nonlocal stock
        if stock or ruleset.stock_exhausted != POZZETTO_BECOMES_STOCK:
            return
        for s in (seat % 2, 1 - seat % 2):  # the drawing side's own pozzetto first
            if available[s]:
                available[s] = False
                stock = sizes[s] or 0
                record.append({"seat": None, "type": "pozzetto_stock", "side": s})
                return

    def pozzetto(how: str) -> None:
        side = seat % 2
        available[side] = False
        counts[seat] = sizes[side] or 0
        record.append({"seat": seat, "type": "pozzetto", "side": side, "how": how})

    start_turn()
    for action in actions:
        kind = action["type"]
        if kind == "draw":
            stock -= 1
            counts[seat] += 1
            record.append({"seat": seat, "type": "draw"})
        elif kind == "take_discards":
            counts[seat] += len(pile)
            record.append({"seat": seat, "type": "take_discards", "cards": pile})
            pile = []
        elif kind in ("meld", "lay_off"):
            cards = list(action["cards"])
            if kind == "meld":
                meld_id = next_id
                next_id += 1
            else:
                meld_id = action["meld"]
            counts[seat] -= len(cards)
            record.append({"seat": seat, "type": kind, "meld": meld_id, "cards": cards})
            if counts[seat] == 0 and available[seat % 2]:
                pozzetto("in_play")
        else:
            card = action["card"]
            pile = pile + [card]
            record.append({"seat": seat, "type": "discard", "card": card})
            counts[seat] -= 1
            if counts[seat] == 0 and available[seat % 2]:
                pozzetto("with_discard")
            seat = (seat + 1) % n
            start_turn()
    return record


def _with_id(meld: Meld, meld_id: int) -> Meld:
    return Meld(meld.kind, meld.cards, meld.burraco, meld.points, meld.wild, meld.low, meld.suit,
                meld_id)


def _three_card_melds(distinct: dict[str, Card], counts: dict[str, int],
                      ruleset: Ruleset) -> Iterator[Meld]:
    """Every distinct legal meld of three cards that these cards allow (as laid)."""
    wilds = [c for c in distinct.values() if c.is_wild]
    seen: set[tuple[str, ...]] = set()
    candidates: list[list[Card]] = []
    by_rank: dict[int, list[Card]] = {}
    by_suit: dict[str, dict[int, Card]] = {}
    for text, c in distinct.items():
        r = c.rank
        if r == 0:
            continue
        if r != 2:
            by_rank.setdefault(r, []).extend([c] * counts[text])
        positions = by_suit.setdefault(c.suit, {})
        if r == 1:
            positions[1] = c
            positions[14] = c
        else:
            positions[r] = c
    for same in by_rank.values():
        # dict.fromkeys drops repeated picks of the two copies and keeps the first-seen order
        # (a set would order them by hash, which changes from one process to the next).
        if len(same) >= 3:
            candidates.extend(list(t) for t in dict.fromkeys(combinations(same, 3)))
        if len(same) >= 2 and wilds:
            for pair in dict.fromkeys(combinations(same, 2)):
                candidates.extend([pair[0], pair[1], w] for w in wilds)
    for positions in by_suit.values():
        if len(positions) < 2:
            continue
        mask = 0
        for pos in positions:
            mask |= 1 << pos
        for start, hole in _windows(mask):
            window = [positions.get(start), positions.get(start + 1), positions.get(start + 2)]
            if hole < 0:
                candidates.append(list(window))
                spots: tuple[int, ...] = (0, 1, 2)
            else:
                spots = (hole,)
            for i in spots:
                for w in wilds:
                    trio = list(window)
                    trio[i] = w
                    candidates.append(trio)
    for trio in candidates:
        try:
            meld = check_meld(trio, ruleset)
        except IllegalMove:
            continue
        key = tuple(c.text for c in meld.cards)
        if key in seen:
            continue
        if len(set(key)) < 3 and any(key.count(t) > counts[t] for t in key):
            continue  # the same card used twice (a 2 as natural and as wild)
        seen.add(key)
        yield meld


@lru_cache(maxsize=4096)
def _windows(mask: int) -> tuple[tuple[int, int], ...]:
    """Runs of three positions (1..14) with at least two present in ``mask``: (start, index of
    the missing one or -1)."""
    found = []
    for start in range(1, 13):
        present = [(mask >> (start + i)) & 1 for i in range(3)]
        if sum(present) == 3:
            found.append((start, -1))
        elif sum(present) == 2:
            found.append((start, present.index(0)))
    return tuple(found)


def replay(deal: dict[str, Any], actions: Sequence[Action]) -> Game:
    """Rebuild a game from its deal and its actions (each played by the seat to move).

    >>> g = Game.new(Ruleset.preset("mano_unica"), rng=random.Random(1))
    >>> g.apply(g.to_move, {"type": "draw"})
    >>> replay(g.deal, g.actions) == g
    True
    """
    g = Game._from_deal(deal)
    for action in actions:
        g.apply(g.to_move, action)
    return g
