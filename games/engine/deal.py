"""Provably fair deals: a secret seed, its public SHA-256, and the one shuffle that turns them
(with the players' own client seeds) into the order of the 108 cards. docs/fairness.md says the
same for people who want to check a deal with their own program.

The construction, version 1:

- *server seed*: 32 bytes from :mod:`secrets`, written as 64 lower-case hex digits;
- *commitment*: the SHA-256 of those 32 bytes (hex), announced to every seat when the hand starts;
- *client seeds*: one text per seat, in seat order, ``""`` for a seat that gave none; each is at
  most 64 printable ASCII characters without spaces. Their *mix* is the texts joined by ``"\\n"``
  (ASCII bytes);
- *random stream*: block ``k`` (k = 0, 1, 2, ...) is ``HMAC-SHA256(key=seed, msg=k as 8 bytes
  big-endian + mix)``, read as eight 32-bit big-endian unsigned words;
- *an integer below m*: the next word ``w``; a word ``w >= 2**32 - 2**32 % m`` is thrown away and
  the next one read (so every value is equally likely); otherwise ``w % m``;
- *shuffle* (Fisher-Yates): the deck in :func:`~games.engine.cards.full_deck` order (AS..KS,
  AH..KH, AD..KD, AC..KC, the same 52 again, then four JK); for ``i`` from 107 down to 1, swap
  card ``i`` with card ``j``, ``j`` an integer below ``i + 1``. Burraco Reale (RULES §15)
  shuffles its 104 cards the same way: that order without the four JK, ``i`` from 103 down;
- *the deal* (:func:`lay_out`) reads the shuffled deck from the front: 11 cards to each seat in
  turn of seat number (seat 0 gets cards 0-10), the two pozzetti of 11 (side 0's first), the
  first discard, and the rest is the stock, its top card first.

The first player is not part of it: hand 1's is drawn by lot, later hands rotate (RULES §2).

>>> fair = FairSeed.from_hex("00" * 32, ["ciao", ""])
>>> fair.hash
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> cards_text(fair.deck()[:10])
['JH', 'JC', '9S', 'TH', '3D', '2D', '5C', 'KC', '6D', 'QH']
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Card, cards_text, full_deck
from .errors import ENGINE_MESSAGES, IllegalMove, gettext_noop
from .rules import Ruleset

VERSION = 1
SEED_BYTES = 32
CLIENT_SEED_MAX = 64
HAND_SIZE = 11
POZZETTO_SIZE = 11

_CLIENT_SEED = re.compile(rf"[\x21-\x7e]{{0,{CLIENT_SEED_MAX}}}")
_SEED_HEX = re.compile(rf"[0-9a-f]{{{2 * SEED_BYTES}}}")
_HASH_HEX = re.compile(r"[0-9a-f]{64}")


def clean_client_seed(text: Any) -> str:
    """A client seed as the deal uses it, or ``IllegalMove("bad_client_seed")``.

    >>> clean_client_seed("  mio-seme-42 ")
    'mio-seme-42'
    >>> try:
    ...     clean_client_seed("due parole")
    ... except IllegalMove as refused:
    ...     print(refused.code)
    bad_client_seed
    """
    if not isinstance(text, str) or not _CLIENT_SEED.fullmatch(text.strip()):
        raise IllegalMove("bad_client_seed")
    return text.strip()


def stream(seed: bytes, mix: bytes) -> Iterator[int]:
    """The 32-bit words of the random stream: HMAC-SHA256(seed, counter || mix), block by block.

    >>> next(stream(bytes(32), b""))
    4084537354
    """
    counter = 0
    while True:
        block = hmac.new(seed, counter.to_bytes(8, "big") + mix, hashlib.sha256).digest()
        for at in range(0, 32, 4):
            yield int.from_bytes(block[at:at + 4], "big")
        counter += 1


def below(words: Iterator[int], m: int) -> int:
    """An integer in ``range(m)`` from the stream, unbiased (rejection sampling).

    >>> below(iter([2**32 - 1, 7]), 10)     # 2**32 - 1 lies in the incomplete last run of 10
    7
    """
    limit = 2**32 - 2**32 % m
    for w in words:
        if w < limit:
            return w % m
    raise AssertionError("the stream never ends")  # pragma: no cover


def shuffled(seed: bytes, client_seeds: Sequence[str] = (), cards: Sequence[Card] | None = None) -> list[Card]:
    """The 108 cards (or ``cards``, a ruleset's deck in its fixed order) in the order this seed
    and these client seeds give (Fisher-Yates)."""
    words = stream(seed, "\n".join(client_seeds).encode("ascii"))
    deck = full_deck() if cards is None else list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def lay_out(texts: Sequence[str], players: int) -> dict[str, Any]:
    """How a shuffled deck (front first) is dealt: hands, pozzetti, the first discard, the stock
    (top card first), as in :attr:`Game.deal <games.engine.game.Game.deal>`.

    >>> piles = lay_out([str(i) for i in range(108)], 2)
    >>> piles["hands"][1][:2], piles["pozzetti"][0][0], piles["discard"], piles["stock"][0]
    (['11', '12'], '22', ['44'], '45')
    """
    hands = [list(texts[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(players)]
    at = players * HAND_SIZE
    pozzetti = [list(texts[at:at + POZZETTO_SIZE]), list(texts[at + POZZETTO_SIZE:at + 2 * POZZETTO_SIZE])]
    at += 2 * POZZETTO_SIZE
    return {"hands": hands, "pozzetti": pozzetti, "discard": [texts[at]], "stock": list(texts[at + 1:])}


def commitment_of(seed: bytes) -> str:
    """The public SHA-256 (hex) of a server seed."""
    return hashlib.sha256(seed).hexdigest()


def new_seed() -> bytes:
    """32 bytes from :mod:`secrets`: a server seed."""
    return secrets.token_bytes(SEED_BYTES)


@dataclass(frozen=True, slots=True)
class FairSeed:
    """The server's secret seed for one hand, with the client seeds mixed into it, and the hash of
    the seed already drawn for the next hand (``next_hash``), announced with this one so that the
    next seed is fixed before the players choose the client seeds that go with it.

    >>> a = FairSeed.draw(["", "x"])
    >>> len(a.seed_hex), len(a.hash), a.client_seeds
    (64, 64, ('', 'x'))
    >>> sorted(cards_text(a.deck())) == sorted(cards_text(full_deck()))
    True
    """

    seed: bytes
    client_seeds: tuple[str, ...] = ()
    next_hash: str | None = None

    @classmethod
    def draw(cls, client_seeds: Sequence[str] = (), *, seed: bytes | None = None,
             next_hash: str | None = None) -> FairSeed:
        """A fresh seed (or ``seed``, drawn earlier) with these client seeds."""
        return cls(seed if seed is not None else new_seed(), tuple(clean_client_seed(s) for s in client_seeds),
                   next_hash)

    @classmethod
    def from_hex(cls, seed_hex: Any, client_seeds: Sequence[str] = ()) -> FairSeed:
        """A published seed read back; ``IllegalMove("bad_seed")`` unless 64 hex digits."""
        if not isinstance(seed_hex, str) or not _SEED_HEX.fullmatch(seed_hex.strip().lower()):
            raise IllegalMove("bad_seed")
        if isinstance(client_seeds, str) or not all(isinstance(s, str) for s in client_seeds):
            raise IllegalMove("bad_client_seed")
        return cls(bytes.fromhex(seed_hex.strip()), tuple(clean_client_seed(s) for s in client_seeds))

    @property
    def seed_hex(self) -> str:
        return self.seed.hex()

    @property
    def hash(self) -> str:
        return commitment_of(self.seed)

    def deck(self, cards: Sequence[Card] | None = None) -> list[Card]:
        """The shuffled deck: the 108 cards, or ``cards`` (``ruleset.deck()``: Reale's 104).

        >>> reale = FairSeed.from_hex("00" * 32).deck(Ruleset.preset("reale").deck())
        >>> len(reale), "JK" in cards_text(reale)
        (104, False)
        """
        return shuffled(self.seed, self.client_seeds, cards)

    def commitment(self) -> dict[str, Any]:
        """What the deal records (and every seat may see): the hash, the client seeds and the
        next hand's hash when one was drawn."""
        recorded: dict[str, Any] = {"version": VERSION, "hash": self.hash, "client_seeds": list(self.client_seeds)}
        if self.next_hash is not None:
            recorded["next_hash"] = self.next_hash
        return recorded


# ----------------------------------------------------------------------------- checking a deal

CHECK_MESSAGES: dict[str, str] = {
    "ok": gettext_noop("Mano verificata: il seme ha l'impronta annunciata e ogni carta coincide"),
    "no_commitment": gettext_noop("Mano senza impegno: è stata distribuita prima dei mazzi verificabili"),
    "bad_seed": ENGINE_MESSAGES["bad_seed"],  # the refusals' own words for the same two codes
    "bad_client_seed": ENGINE_MESSAGES["bad_client_seed"],
    "bad_hash": gettext_noop("L'impronta non è valida: servono 64 cifre esadecimali"),
    "hash_mismatch": gettext_noop(
        "L'impronta registrata non è quella del seme, che pure distribuisce proprio le carte giocate: "
        "è l'impronta a essere cambiata"),
    "chain_mismatch": gettext_noop(
        "L'impronta di questa mano non è quella che la mano precedente aveva annunciato per lei"),
    "seed_mismatch": gettext_noop(
        "Il seme pubblicato non ha l'impronta annunciata all'inizio della mano e non distribuisce le carte "
        "giocate: non è il seme di questa mano"),
    "card_mismatch": gettext_noop("Le carte registrate non sono quelle che il seme distribuisce"),
}


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One card of the recorded deal that differs from the seed's: ``pile`` is ``hands``,
    ``pozzetti``, ``discard`` or ``stock``; ``owner`` the seat or side (None for the others)."""

    pile: str
    owner: int | None
    index: int
    recorded: str | None
    derived: str | None


@dataclass(frozen=True, slots=True)
class DealCheck:
    """The verdict on one deal: ``code`` (a key of :data:`CHECK_MESSAGES`), the hash recomputed
    from the seed, how many cards were compared and the ones that differ."""

    code: str
    computed_hash: str | None = None
    compared: int = 0
    mismatches: tuple[Mismatch, ...] = ()

    @property
    def ok(self) -> bool:
        return self.code == "ok"

    @property
    def message(self) -> str:
        return CHECK_MESSAGES[self.code]


def check_deal(deal: dict[str, Any], seed_hex: Any, client_seeds: Sequence[str] | None = None,
               announced_hash: Any = None, *, announced_before: str | None = None) -> DealCheck:
    """Rebuild a deal from its published seed and compare it card by card with the recorded one.

    The verdict: ``ok``; ``card_mismatch`` (the seed has the announced hash, some recorded card
    differs); ``seed_mismatch`` (the seed has another hash and deals other cards: not this hand's
    seed); ``hash_mismatch`` (the seed deals exactly the recorded cards but the recorded hash is
    not its own); ``bad_seed``, ``bad_client_seed``, ``bad_hash`` (unreadable input);
    ``no_commitment`` (a hand dealt without one); ``chain_mismatch`` (all of that holds, but the
    hash is not ``announced_before``, the ``next_hash`` the previous hand announced for this one).

    ``client_seeds`` and ``announced_hash`` default to the ones the deal recorded (its
    ``commitment``); a deal with no commitment is ``no_commitment``, never an error.

    >>> from games.engine import Game, Ruleset
    >>> fair = FairSeed.from_hex("ab" * 32, ["", ""])
    >>> g = Game.new(Ruleset.preset("classico"), fair=fair)
    >>> check_deal(g.deal, fair.seed_hex).code
    'ok'
    >>> check_deal(g.deal, "cd" * 32).code                              # another seed
    'seed_mismatch'
    >>> check_deal(g.deal, fair.seed_hex, announced_hash="00" * 32).code  # another hash
    'hash_mismatch'
    >>> check_deal(Game.new(Ruleset.preset("classico")).deal, "ab" * 32).code
    'no_commitment'
    """
    recorded = deal.get("commitment")
    if not isinstance(recorded, dict):
        return DealCheck("no_commitment")
    if client_seeds is None:
        client_seeds = recorded.get("client_seeds", [])
    if announced_hash is None:
        announced_hash = recorded.get("hash")
    try:
        fair = FairSeed.from_hex(seed_hex, client_seeds)
    except IllegalMove as refused:
        return DealCheck(refused.code)
    if not isinstance(announced_hash, str) or not _HASH_HEX.fullmatch(announced_hash.strip().lower()):
        return DealCheck("bad_hash", fair.hash)
    derived = lay_out(cards_text(fair.deck(_deck_of(deal))), len(deal.get("hands") or []) or 2)
    mismatches = []
    compared = 0
    for pile in ("hands", "pozzetti", "discard", "stock"):
        recorded_pile = deal.get(pile) or []
        grouped = pile in ("hands", "pozzetti")
        groups = list(derived[pile]) if grouped else [derived[pile]]
        recorded_groups = list(recorded_pile) if grouped else [recorded_pile]
        for owner in range(max(len(groups), len(recorded_groups))):
            want = groups[owner] if owner < len(groups) else []
            got = list(recorded_groups[owner] or []) if owner < len(recorded_groups) else []
            for index in range(max(len(want), len(got))):
                compared += 1
                a = want[index] if index < len(want) else None
                b = got[index] if index < len(got) else None
                if a != b:
                    mismatches.append(Mismatch(pile, owner if grouped else None, index, b, a))
    if fair.hash != announced_hash.strip().lower():
        # Which side is wrong: a seed that deals the recorded cards points at the hash.
        code = "seed_mismatch" if mismatches else "hash_mismatch"
    else:
        code = "card_mismatch" if mismatches else "ok"
    if code == "ok" and announced_before is not None and fair.hash != announced_before:
        code = "chain_mismatch"
    return DealCheck(code, fair.hash, compared, tuple(mismatches))


def _deck_of(deal: dict[str, Any]) -> list[Card] | None:
    """The cards the deal's ruleset shuffles (Burraco Reale's 104), None for the 108 or when the
    recorded ruleset cannot be read (the check then simply finds the cards differ)."""
    try:
        return Ruleset.from_dict(deal["ruleset"]).deck()
    except (IllegalMove, KeyError, TypeError, ValueError):
        return None
