"""Small helpers shared by the engine tests."""

from __future__ import annotations

import pytest

from games.engine import MESSAGES, Game, IllegalMove, Ruleset

CLASSICO = Ruleset.preset("classico")
MANO_UNICA = Ruleset.preset("mano_unica")
TESTA = Ruleset.preset("testa_a_testa")

# A pozzetto's worth of cards, for positions that need one still on the table.
POZZETTO = "AS 3S 4D 6C 8D 9C TC JD QH KC 3D"
POZZETTO2 = "AD 3C 6H 8C 9D TD JC KH AC 3D AH"
BURRACO = "3S 4S 5S 6S 7S 8S 9S"


def refuse(game: Game, seat: int, action: dict, code: str) -> IllegalMove:
    """Assert the action is refused with ``code`` and its exact message, changing nothing."""
    before = game.to_dict()
    with pytest.raises(IllegalMove) as info:
        game.apply(seat, action)
    assert info.value.code == code
    assert info.value.message == MESSAGES[code]
    assert game.to_dict() == before
    return info.value


def play(game: Game, *actions: dict) -> Game:
    for action in actions:
        game.apply(game.to_move, action)
    return game


def draw():
    return {"type": "draw"}


def take():
    return {"type": "take_discards"}


def meld(cards: str):
    return {"type": "meld", "cards": cards.split()}


def lay(meld_id: int, cards: str):
    return {"type": "lay_off", "meld": meld_id, "cards": cards.split()}


def discard(card: str):
    return {"type": "discard", "card": card}
