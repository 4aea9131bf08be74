"""Table options (RULES.md section 11) and the three presets.

Options and presets are plain data here so the site's rules pages and lobby forms render them
from the engine and cannot drift from what the engine plays.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from .cards import Card, full_deck
from .errors import IllegalMove, gettext_noop

END_AT_TWO = "end_at_two"
POZZETTO_BECOMES_STOCK = "pozzetto_becomes_stock"
TARGETS = (None, 505, 1005, 2005)
# Burraco Reale (RULES §15): the variant of the preset of that name.
REALE = "reale"
PINELLA_POINTS = (20, 10)
MAX_HANDS = 8  # the most hands a match of a fixed number of hands may have

# One entry per option: its values and a short Italian label for forms and rules pages.
OPTIONS: tuple[dict[str, Any], ...] = (
    {"name": "players", "values": [2, 4], "label": gettext_noop("Giocatori (4 = due coppie)")},
    {"name": "target", "values": list(TARGETS),
     "label": gettext_noop("Punteggio da raggiungere (nessuno = una sola mano)")},
    {"name": "semipulito", "values": [False, True],
     "label": gettext_noop("Burraco semipulito da 150 punti")},
    {"name": "close_by_melding", "values": [False, True],
     "label": gettext_noop("Chiusura anche calando l'ultima carta, senza scarto")},
    {"name": "stock_exhausted", "values": [END_AT_TWO, POZZETTO_BECOMES_STOCK],
     "label": gettext_noop("Tallone finito: mano chiusa a due carte, oppure il pozzetto diventa tallone")},
    {"name": "burraco_sets", "values": [True, False],
     "label": gettext_noop("Anche un tris di 7 o più carte è burraco")},
    {"name": "pozzetto_must_be_played", "values": [False, True],
     "label": gettext_noop("Il pozzetto preso con lo scarto conta solo se si arriva a giocarlo")},
    {"name": "pinella_points", "values": list(PINELLA_POINTS),
     "label": gettext_noop("Punti di ogni pinella (solo Burraco Reale)")},
    {"name": "draw_seconds", "values": "int", "label": gettext_noop("Secondi per pescare")},
    {"name": "play_seconds", "values": "int", "label": gettext_noop("Secondi per il resto del turno")},
    {"name": "grace_seconds", "values": "int",
     "label": gettext_noop("Secondi di assenza prima che giochi il computer")},
)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The options a table is played with. Build one with :meth:`preset`.

    The timers are carried for the site (the engine itself has no clock).

    >>> r = Ruleset.preset("classico", players=4, semipulito=True)
    >>> r.players, r.target, r.semipulito, r.stock_exhausted
    (4, 2005, True, 'end_at_two')
    >>> Ruleset.from_dict(r.to_dict()) == r
    True
    >>> Ruleset.preset("mano_unica").close_by_melding
    True
    """

    preset_name: str = "classico"
    players: int = 2
    target: int | None = 2005
    semipulito: bool = False
    close_by_melding: bool = False
    stock_exhausted: str = END_AT_TWO
    burraco_sets: bool = True
    pozzetto_must_be_played: bool = False
    pinella_points: int = 20
    # A fixed number of hands instead of a target (duplicate tournaments: every table of a round
    # plays the same `hands` deals, games/engine/duplicate.py); None: the target decides.
    hands: int | None = None
    draw_seconds: int = 30
    play_seconds: int = 60
    grace_seconds: int = 45

    def __post_init__(self) -> None:
        ok = (
            self.players in (2, 4)
            and self.target in TARGETS
            and self.stock_exhausted in (END_AT_TWO, POZZETTO_BECOMES_STOCK)
            and all(isinstance(getattr(self, name), bool) for name in _FLAGS)
            and all(isinstance(getattr(self, name), int) and getattr(self, name) > 0
                    for name in _TIMERS)
            and self.pinella_points in PINELLA_POINTS
            and (self.hands is None or (self.target is None and isinstance(self.hands, int)
                                        and not isinstance(self.hands, bool) and 1 <= self.hands <= MAX_HANDS))
        )
        if self.preset_name == REALE:
            # Sequences only and four bonuses of their own (RULES §15): no semipulito, no sets.
            ok = ok and not self.semipulito and not self.burraco_sets
        elif self.pinella_points != 20:  # the option is Reale's alone
            ok = False
        if not ok:
            raise IllegalMove("bad_option")

    @classmethod
    def preset(cls, name: str = "classico", **overrides: Any) -> Ruleset:
        """A preset of RULES §11 with keyword overrides (``players=4``, ``target=505`` …)."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise IllegalMove("bad_option") from None
        unknown = set(overrides) - set(_FIELDS)
        if unknown or "preset_name" in overrides:
            raise IllegalMove("bad_option")
        return replace(base, **overrides)

    @property
    def sides(self) -> int:
        return 2

    @property
    def variant(self) -> str:
        """``"reale"`` for Burraco Reale (RULES §15), set by its preset; ``"classic"`` otherwise.

        >>> Ruleset.preset("reale").variant, Ruleset.preset("classico").variant
        ('reale', 'classic')
        """
        return REALE if self.preset_name == REALE else "classic"

    def deck(self) -> list[Card]:
        """The cards a hand is dealt from, in a fixed order: 108 with the jokers, 104 without
        them in Burraco Reale.

        >>> len(Ruleset.preset("classico").deck()), len(Ruleset.preset("reale").deck())
        (108, 104)
        """
        deck = full_deck()
        if self.preset_name == REALE:
            return [c for c in deck if not c.is_joker]
        return deck

    def card_points(self, card: Card) -> int:
        """What a card counts, on the table or in hand: its points (RULES §1), but a 2 counts
        ``pinella_points`` (RULES §15; always 20 outside Burraco Reale).

        >>> r = Ruleset.preset("reale", pinella_points=10)
        >>> r.card_points(Card(2, "H")), r.card_points(Card(1, "H"))
        (10, 15)
        """
        return self.pinella_points if card.rank == 2 else card.points

    def closes_with(self, burraco: str | None) -> bool:
        """Whether a meld's burraco (None, "pulito", "sporco" …) lets its side close (RULES §7);
        in Burraco Reale only a clean one does (§15).

        >>> Ruleset.preset("classico").closes_with("sporco"), Ruleset.preset("reale").closes_with("sporco")
        (True, False)
        >>> Ruleset.preset("reale").closes_with("nobile")
        True
        """
        if burraco is None:
            return False
        return burraco != "sporco" or self.preset_name != REALE

    def refusal(self, code: str) -> str:
        """The refusal code for a play that lacks the burraco needed to close: Burraco Reale
        names the clean burraco it asks for (RULES §15).

        >>> Ruleset.preset("reale").refusal("burraco_required")
        'clean_burraco_required'
        >>> Ruleset.preset("classico").refusal("burraco_required")
        'burraco_required'
        """
        if self.preset_name == REALE:
            return _REALE_REFUSALS.get(code, code)
        return code

    @property
    def preset_allows_players(self) -> bool:
        """Whether the preset is played with this many players (RULES §11: mano_unica and
        testa_a_testa are one-against-one games). The engine plays any combination; the site
        opens tables only where this holds.

        >>> Ruleset.preset("mano_unica", players=4).preset_allows_players
        False
        >>> Ruleset.preset("classico", players=4).preset_allows_players
        True
        """
        return self.players in PRESET_PLAYERS[self.preset_name]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready options; ``preset`` names the preset they started from. ``pinella_points``
        is left out where it cannot change (outside Burraco Reale), and ``hands`` where it is not
        set, so the saved options of earlier tables read as before.

        >>> "pinella_points" in Ruleset().to_dict(), Ruleset.preset("reale").to_dict()["pinella_points"]
        (False, 20)
        >>> "hands" in Ruleset().to_dict(), Ruleset.preset("classico", target=None, hands=3).to_dict()["hands"]
        (False, 3)
        """
        cached = _AS_DICT.get(self)
        if cached is None:  # views carry the options every time: build them once per ruleset
            cached = asdict(self)
            cached["preset"] = cached.pop("preset_name")
            if self.preset_name != REALE:
                del cached["pinella_points"]
            if self.hands is None:
                del cached["hands"]
            _AS_DICT[self] = cached
        return dict(cached)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        data = dict(data)
        name = data.pop("preset", "classico")
        if name not in PRESETS or set(data) - set(_FIELDS):
            raise IllegalMove("bad_option")
        return replace(PRESETS[name], **data)


_AS_DICT: dict[Ruleset, dict[str, Any]] = {}
_REALE_REFUSALS = {"burraco_required": "clean_burraco_required",
                   "single_card_without_burraco": "single_card_without_clean_burraco"}
_FLAGS = ("semipulito", "close_by_melding", "burraco_sets", "pozzetto_must_be_played")
_TIMERS = ("draw_seconds", "play_seconds", "grace_seconds")
_FIELDS = tuple(f for f in Ruleset.__dataclass_fields__ if f != "preset_name")

PRESETS: dict[str, Ruleset] = {
    # Italian club rules (003): 2 or 4 players, a match to 2005.
    "classico": Ruleset("classico"),
    # One-against-one single hand (000): close by melding, pozzetto turns into stock.
    "mano_unica": Ruleset("mano_unica", target=None, close_by_melding=True,
                          stock_exhausted=POZZETTO_BECOMES_STOCK),
    # Testa a testa (002): single hand, only sequences make a burraco, pozzetto must be played.
    "testa_a_testa": Ruleset("testa_a_testa", target=None, burraco_sets=False,
                             pozzetto_must_be_played=True),
    # Burraco Reale (RULES §15): 104 cards, sequences only, a clean burraco to close; 2 or 4
    # players, a match to 2005 closed only by discarding.
    REALE: Ruleset(REALE, burraco_sets=False),
}


# How many players each preset is for (RULES §11).
PRESET_PLAYERS: dict[str, tuple[int, ...]] = {
    "classico": (2, 4),
    "mano_unica": (2,),
    "testa_a_testa": (2,),
    REALE: (2, 4),
}


def presets_table() -> list[dict[str, Any]]:
    """Every preset as a dict, for the rules pages.

    >>> [p["preset"] for p in presets_table()]
    ['classico', 'mano_unica', 'testa_a_testa', 'reale']
    """
    return [p.to_dict() for p in PRESETS.values()]
