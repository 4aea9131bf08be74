"""The one exception the engine raises, and the table of every refusal it can give.

Codes are stable identifiers for programs; messages are the Italian sentences shown to
players. The first block is the list of RULES.md section 12, quoted word for word (the
three sentences cut in the source are completed after their known start). The second
block covers plays that list does not name; its wording is the project's own.
"""

from __future__ import annotations


def gettext_noop(text: str) -> str:
    """Mark an Italian text for the site's translation catalogue and return it unchanged.

    The engine speaks Italian only; the site translates a message when it shows it. The name is
    Django's own marker, so `makemessages` finds these texts without the engine importing Django.

    >>> gettext_noop("Non è il tuo turno")
    'Non è il tuo turno'
    """
    return text


# RULES.md section 12, in the order of the rule book.
RULEBOOK_MESSAGES: dict[str, str] = {
    "meld_size": gettext_noop("Numero di carte non valido (min 3, max 14)"),
    "not_homogeneous": gettext_noop("I valori delle carte non sono omogenei: non formano né una scala né un tris"),
    "mixed_suits": gettext_noop("Le carte non sono tutte dello stesso seme"),
    "duplicate_rank": gettext_noop("Ci sono almeno due carte dello stesso valore"),
    "gap_too_large": gettext_noop("La distanza tra due carte è troppo grande per essere colmata"),
    "not_enough_wilds": gettext_noop("La matta non è sufficiente per colmare tutti i buchi"),
    "too_many_pinelle": gettext_noop("Numero di pinelle superiore a due"),
    "one_joker_only": gettext_noop("È ammesso un solo Joker in una giocata"),
    "joker_and_pinella": gettext_noop("Con un Joker è ammessa al massimo una pinella"),
    "pinella_wrong_suit": gettext_noop("Nessuna pinella ha il seme corretto per stare al suo posto nella scala"),
    "pinella_cannot_heal": gettext_noop("La pinella aggiunta non può sanare quella già presente"),
    "duplicate_set": gettext_noop("Esiste già una combinazione uguale nel gioco"),
    "last_card_from_discard": gettext_noop(
        "Resteresti con in mano solo la carta raccolta dagli scarti, che non si può scartare"
    ),
    "discard_picked_card": gettext_noop("Non si può scartare l'unica carta presa dagli scarti"),
    "single_wild_left": gettext_noop("Non è possibile restare con una matta in mano"),
    "single_card_without_burraco": gettext_noop(
        "Non è possibile restare con una sola carta in mano senza aver fatto Burraco"
    ),
    "cannot_meld_all_after_pozzetto": gettext_noop(
        "Non si possono calare tutte le carte avendo già preso il Pozzetto"
    ),
    "burraco_required": gettext_noop("Bisogna aver fatto Burraco per terminare"),
}

# Refusals the rule book's list leaves out, in our own words.
ENGINE_MESSAGES: dict[str, str] = {
    "not_your_turn": gettext_noop("Non è il tuo turno"),
    "must_draw_first": gettext_noop("Prima si pesca: dal tallone oppure tutti gli scarti"),
    "already_drawn": gettext_noop("Hai già pescato in questo turno"),
    "card_not_in_hand": gettext_noop("Quella carta non è nella tua mano"),
    "only_wilds": gettext_noop("Un gioco non può essere fatto di sole matte"),
    "set_of_twos": gettext_noop("Non si può calare un tris di pinelle"),
    "two_wilds": gettext_noop("In un gioco sta una matta sola: un 2 è naturale solo accanto al 3 del suo seme"),
    "wild_closing_discard": gettext_noop("Non si chiude scartando una matta"),
    "pozzetto_required_to_close": gettext_noop("Per chiudere serve prima il Pozzetto"),
    "hand_over": gettext_noop("La mano è già finita"),
    "unknown_meld": gettext_noop("Quel gioco non c'è tra quelli della tua parte del tavolo"),
    "bad_action": gettext_noop("Mossa non riconosciuta"),
    "bad_card": gettext_noop("Carta non riconosciuta"),
    "discard_pile_empty": gettext_noop("Non ci sono scarti da raccogliere"),
    "stock_empty": gettext_noop("Il tallone è vuoto"),
    "bad_option": gettext_noop("Opzione del tavolo non valida"),
    "bad_position": gettext_noop("Posizione di gioco non valida"),
    "hand_not_over": gettext_noop("La mano non è ancora finita"),
    "match_over": gettext_noop("La partita è già finita"),
    "bad_seed": gettext_noop("Il seme non è valido: servono 64 cifre esadecimali"),
    "bad_client_seed": gettext_noop("Il seme del giocatore va da 0 a 64 caratteri ASCII stampabili, senza spazi"),
    # Burraco Reale (RULES §15).
    "reale_no_sets": gettext_noop("Nel Burraco Reale si calano solo scale: i tris non sono ammessi"),
    "reale_no_joker": gettext_noop("Nel Burraco Reale non ci sono Jolly: le sole matte sono le pinelle"),
    "clean_burraco_required": gettext_noop("Bisogna aver fatto un Burraco pulito per terminare"),
    "single_card_without_clean_burraco": gettext_noop(
        "Non è possibile restare con una sola carta in mano senza aver fatto un Burraco pulito"
    ),
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
