"""The one exception the engine raises, and the table of every refusal it can give.

Codes are stable identifiers for programs; messages are the Italian sentences shown to
players. The first block is the list of RULES.md section 12, quoted word for word (the
three sentences cut in the source are completed after their known start). The second
block covers plays that list does not name; its wording is the project's own.
"""

from __future__ import annotations

# RULES.md section 12, in the order of the rule book.
RULEBOOK_MESSAGES: dict[str, str] = {
    "meld_size": "Numero di carte non valido (min 3, max 14)",
    "not_homogeneous": "I valori delle carte non sono omogenei: non formano né una scala né un tris",
    "mixed_suits": "Le carte non sono tutte dello stesso seme",
    "duplicate_rank": "Ci sono almeno due carte dello stesso valore",
    "gap_too_large": "La distanza tra due carte è troppo grande per essere colmata",
    "not_enough_wilds": "La matta non è sufficiente per colmare tutti i buchi",
    "too_many_pinelle": "Numero di pinelle superiore a due",
    "one_joker_only": "È ammesso un solo Joker in una giocata",
    "joker_and_pinella": "Con un Joker è ammessa al massimo una pinella",
    "pinella_wrong_suit": "Nessuna pinella ha il seme corretto per stare al suo posto nella scala",
    "pinella_cannot_heal": "La pinella aggiunta non può sanare quella già presente",
    "duplicate_set": "Esiste già una combinazione uguale nel gioco",
    "last_card_from_discard": (
        "Resteresti con in mano solo la carta raccolta dagli scarti, che non si può scartare"
    ),
    "discard_picked_card": "Non si può scartare l'unica carta presa dagli scarti",
    "single_wild_left": "Non è possibile restare con una matta in mano",
    "single_card_without_burraco": (
        "Non è possibile restare con una sola carta in mano senza aver fatto Burraco"
    ),
    "cannot_meld_all_after_pozzetto": (
        "Non si possono calare tutte le carte avendo già preso il Pozzetto"
    ),
    "burraco_required": "Bisogna aver fatto Burraco per terminare",
}

# Refusals the rule book's list leaves out, in our own words.
ENGINE_MESSAGES: dict[str, str] = {
    "not_your_turn": "Non è il tuo turno",
    "must_draw_first": "Prima si pesca: dal tallone oppure tutti gli scarti",
    "already_drawn": "Hai già pescato in questo turno",
    "card_not_in_hand": "Quella carta non è nella tua mano",
    "only_wilds": "Un gioco non può essere fatto di sole matte",
    "set_of_twos": "Non si può calare un tris di pinelle",
    "two_wilds": "In un gioco sta una matta sola: un 2 è naturale solo accanto al 3 del suo seme",
    "wild_closing_discard": "Non si chiude scartando una matta",
    "pozzetto_required_to_close": "Per chiudere serve prima il Pozzetto",
    "hand_over": "La mano è già finita",
    "unknown_meld": "Quel gioco non c'è tra quelli della tua parte del tavolo",
    "bad_action": "Mossa non riconosciuta",
    "bad_card": "Carta non riconosciuta",
    "discard_pile_empty": "Non ci sono scarti da raccogliere",
    "stock_empty": "Il tallone è vuoto",
    "bad_option": "Opzione del tavolo non valida",
    "bad_position": "Posizione di gioco non valida",
    "hand_not_over": "La mano non è ancora finita",
    "match_over": "La partita è già finita",
}

MESSAGES: dict[str, str] = {**RULEBOOK_MESSAGES, **ENGINE_MESSAGES}


class IllegalMove(ValueError):
    """A refused play: ``code`` is stable, ``message`` is the Italian text for players.

    The position is left exactly as it was before the refused call.

    >>> err = IllegalMove("meld_size")
    >>> err.code, err.message
    ('meld_size', 'Numero di carte non valido (min 3, max 14)')
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(self, code: str, message: str | None = None) -> None:
        self.code = code
        self.message = message if message is not None else MESSAGES[code]
        super().__init__(f"{code}: {self.message}")

    def __reduce__(self):  # keep pickling (Celery) working with two arguments
        return (IllegalMove, (self.code, self.message))
