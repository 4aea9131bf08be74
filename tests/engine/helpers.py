"""Small helpers shared by the engine tests."""

from __future__ import annotations

import pytest

from games.engine import MESSAGES, Game, IllegalMove, Ruleset, replay

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


def hidden_twin(game: Game, seat: int) -> Game | None:
    """The same hand with one hidden card changed: a card `seat` held from the deal and never
    showed is swapped, in the deal, with a card that stayed in the stock, and the actions are
    replayed. None when no such swap replays (every card shown, or the actions no longer legal)."""
    record = game.public_record()
    shown = {e["card"] for e in record if "card" in e} | {c for e in record for c in e.get("cards", [])}
    drawn = sum(1 for a in game.actions if a["type"] == "draw")
    deal = game.deal
    held_now = {c.text for c in game.hand(seat)}
    for i, held in enumerate(deal["hands"][seat]):
        for j, spare in enumerate(deal["stock"][drawn:]):
            if held in shown or spare == held or held not in held_now:
                continue
            twin_deal = game.deal
            twin_deal["hands"][seat][i] = spare
            twin_deal["stock"][drawn + j] = held
            try:
                return replay(twin_deal, game.actions)
            except IllegalMove:
                continue
    return None
