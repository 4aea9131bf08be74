"""Burraco rules engine: a pure Python library (no Django), in the style of python-chess.

>>> from games.engine import parse_cards, check_meld, Ruleset
>>> check_meld(parse_cards("3H 4H JK 6H"), Ruleset.preset("classico")).kind
'sequence'
"""

from .cards import ALL_CARDS, CARD_POINTS, JOKER, Card, card, cards_text, full_deck, parse_cards, sort_cards
from .deal import CHECK_MESSAGES, DealCheck, FairSeed, Mismatch, check_deal
from .errors import ENGINE_MESSAGES, MESSAGES, RULEBOOK_MESSAGES, IllegalMove
from .game import ACTION_TYPES, Game, Match, match_result, replay
from .melds import BURRACO_BONUS, Meld, burraco_kind, check_meld, lay_off
from .rules import OPTIONS, PRESET_PLAYERS, PRESETS, Ruleset, presets_table

__all__ = [
    "ACTION_TYPES", "ALL_CARDS", "BURRACO_BONUS", "CARD_POINTS", "CHECK_MESSAGES", "ENGINE_MESSAGES",
    "JOKER", "MESSAGES", "OPTIONS", "PRESET_PLAYERS", "PRESETS", "RULEBOOK_MESSAGES", "Card",
    "DealCheck", "FairSeed", "Game", "IllegalMove", "Match", "Meld", "Mismatch", "Ruleset",
    "burraco_kind", "card", "cards_text", "check_deal", "check_meld", "full_deck", "lay_off",
    "match_result", "parse_cards", "presets_table", "replay", "sort_cards",
]
