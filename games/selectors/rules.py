"""What the rules pages show, read from the engine's own definitions so the pages cannot drift.

Card points, burraco bonuses, the closing bonus and pozzetto penalty, the table options and
presets, the refusal messages and the verdicts on the worked examples all come from
games.engine at request time. The engine marks its Italian texts with `gettext_noop`, so they are
in the site's catalogue and the English page translates them; a test checks that every engine
text is translated, so a new engine message cannot go unnoticed.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.engine import (
    BURRACO_BONUS,
    CARD_POINTS,
    ENGINE_MESSAGES,
    MESSAGES,
    OPTIONS,
    PRESET_PLAYERS,
    PRESETS,
    RULEBOOK_MESSAGES,
    Game,
    IllegalMove,
    Ruleset,
    check_meld,
    lay_off,
    parse_cards,
)
from games.engine.deal import HAND_SIZE, POZZETTO_SIZE
from games.engine.game import CLOSING_BONUS, POZZETTO_PENALTY
from games.selectors.reliability import MIN_MATCHES, RECENT_MATCHES, RELIABILITY_MIX_SECONDS, RELIABLE_SHARE


def engine_text(text: str) -> str:
    """An engine Italian text in the active language (unchanged in Italian)."""
    return _(text)


def preset_label(name: str) -> str:
    labels = {"classico": _("Classico"), "mano_unica": _("Mano unica"), "testa_a_testa": _("Testa a testa"),
              "reale": _("Burraco Reale")}
    return labels.get(name, name)


def option_value_label(name: str, value: Any) -> str:
    """How one option value reads on the pages (and in history filters)."""
    if isinstance(value, bool):
        return _("sì") if value else _("no")
    if name == "target":
        return _("nessuno: una mano sola") if value is None else str(value)
    if name == "stock_exhausted":
        return {
            "end_at_two": _("fine della mano a 2 carte"),
            "pozzetto_becomes_stock": _("il pozzetto diventa tallone"),
        }.get(value, str(value))
    if name == "players":
        return _("2 o 4") if value is None else str(value)
    return str(value)


def burraco_label(kind: str | None) -> str:
    labels = {"pulito": _("pulito"), "semipulito": _("semipulito"), "sporco": _("sporco"),
              "nobile": _("nobile"), "reale": _("reale")}
    return labels.get(kind or "", kind or "")


def options_table() -> list[dict[str, Any]]:
    """One row per engine option: its label, each preset's value, the values a table may choose."""
    rows = []
    for option in OPTIONS:
        name = option["name"]
        per_preset = []
        for preset_name, ruleset in PRESETS.items():
            value = getattr(ruleset, name)
            if name == "players" and len(PRESET_PLAYERS[preset_name]) > 1:
                value = None  # the club rules (and Burraco Reale) are played by 2 or by 4
            per_preset.append(option_value_label(name, value))
        values = option["values"]
        choices = _("numero di secondi") if values == "int" else " / ".join(option_value_label(name, v) for v in values)
        rows.append({"name": name, "label": engine_text(option["label"]), "presets": per_preset, "choices": choices})
    return rows


def table_rules(options: dict[str, Any]) -> dict[str, Any]:
    """A table's own rules as the table page shows them: its preset, its target, and each
    option (timers included) that differs from the Classico rules."""
    try:
        ruleset = Ruleset.from_dict(options)
    except IllegalMove:
        ruleset = PRESETS["classico"]
    classico = PRESETS["classico"]
    if ruleset.hands is not None:  # a duplicate tournament's table: the round's deals, one hand each
        target = _("%(n)s mani, le stesse smazzate a ogni tavolo del turno (torneo duplicato)") % {"n": ruleset.hands}
    elif ruleset.target is None:
        target = _("nessun punteggio da raggiungere: una mano sola")
    else:
        target = _("a %(n)s punti") % {"n": ruleset.target}
    differences = []
    for option in OPTIONS:
        name = option["name"]
        if name in ("players", "target"):
            continue
        value = getattr(ruleset, name)
        if value != getattr(classico, name):
            # The option's short name where its long label already lists the values.
            label = _("Tallone finito") if name == "stock_exhausted" else engine_text(option["label"])
            differences.append({"name": name, "label": label, "value": option_value_label(name, value)})
    return {"preset": preset_label(ruleset.preset_name), "target": target, "differences": differences}


def presets() -> list[dict[str, str]]:
    return [{"name": name, "label": preset_label(name)} for name in PRESETS]


def card_points_rows() -> list[dict[str, Any]]:
    """Card values grouped by points, highest first, each with sample cards to draw."""
    rank_names = {"JK": _("jolly"), "2": _("pinella (2)"), "A": _("asso"), "K": "K", "Q": "Q", "J": "J", "T": "10"}
    by_points: dict[int, list[str]] = {}
    for rank, points in CARD_POINTS.items():
        by_points.setdefault(points, []).append(rank)
    rows = []
    for points in sorted(by_points, reverse=True):
        ranks = by_points[points]
        samples = ["JK" if r == "JK" else r + "HSDC"[i % 4] for i, r in enumerate(ranks)]
        rows.append({"points": points, "ranks": [rank_names.get(r, r) for r in ranks], "cards": samples})
    return rows


def refusals() -> list[dict[str, Any]]:
    """Every refusal the engine can give: code, the Italian shown in play, the translation."""
    rows = []
    for source, table in (("rulebook", RULEBOOK_MESSAGES), ("engine", ENGINE_MESSAGES)):
        for code, message in table.items():
            rows.append({"code": code, "message": message, "translated": engine_text(message), "source": source})
    return rows


def _verdict(cards: str, ruleset: Ruleset) -> dict[str, Any]:
    try:
        meld = check_meld(cards, ruleset)
    except IllegalMove as exc:
        return {"cards": cards.split(), "ok": False, "message": engine_text(exc.message), "code": exc.code}
    return {
        "cards": meld.texts(), "ok": True, "kind": meld.kind, "points": meld.points,
        "burraco": burraco_label(meld.burraco),
        "bonus": meld.bonus, "wild": meld.wild,
    }


# Worked examples (RULES §14): the cards as a player would pick them, in the order they are shown;
# the verdict and the order on the table come from the engine.
MELD_EXAMPLES = (
    "7H 8H 9H", "QH KH AH", "KH AH 2H 3H", "KH AH 2H", "AH 2H 3H", "2H 3H 4H JK", "AH 2H JK",
    "5H 5S JK", "2S 2H 2D", "5H JK 2C",
)
BURRACO_EXAMPLES = ("3H 4H 5H 6H 7H 8H 9H", "3H 4H JK 6H 7H 8H 9H", "8S 8S 8H 8D 8C 8C 8H")


def meld_examples() -> list[dict[str, Any]]:
    classico = Ruleset.preset("classico")
    return [_verdict(cards, classico) for cards in MELD_EXAMPLES]


# Wild sliding (RULES §4): a meld on the table, the card laid off, and what the example shows.
SLIDE_EXAMPLES = (
    ("3H 4H JK 6H 7H 8H 9H", "5H"),
    ("3S 4S 5S 6S 7S 8S 9S 2S JS QS KS AS", "TS"),
    ("JK 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "2H"),
    ("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "2H"),
)


def _slide_notes() -> list[str]:
    return [
        _("Il jolly sta al posto del 5. Legando il 5 di cuori il jolly passa in cima, dove vale "
          "come 10, e il burraco resta sporco."),
        _("Il 2 di picche sta al posto del 10. Legando il 10 vero il 2 scivola in fondo, perché in "
          "cima c'è l'asso alto, e si ritrova subito sotto il 3 di picche: è il suo posto, quindi "
          "lì conta come carta naturale e il burraco da sporco diventa pulito."),
        _("Il jolly sta al posto del 2. Il 2 di cuori legato qui è naturale: prende il suo posto, "
          "il jolly scivola in fondo e fa da asso basso, mentre l'asso resta in cima."),
        _("Una scala senza matte dal 3 all'asso: il 2 di cuori si aggiunge sotto il 3 come carta "
          "naturale, l'asso non cambia estremità e il burraco resta pulito."),
    ]


def slide_examples() -> list[dict[str, Any]]:
    """Each sliding example laid off by the engine: the meld before and after, with verdicts."""
    classico = Ruleset.preset("classico")
    rows = []
    for (cards, card), note in zip(SLIDE_EXAMPLES, _slide_notes(), strict=True):
        before = check_meld(cards, classico)
        after = lay_off(before, parse_cards(card), classico)
        rows.append({
            "before": before.texts(), "before_wild": before.wild, "card": card,
            "after": after.texts(), "after_wild": after.wild,
            "before_burraco": burraco_label(before.burraco), "before_bonus": before.bonus,
            "after_burraco": burraco_label(after.burraco), "after_bonus": after.bonus,
            "note": note,
        })
    return rows


def burraco_examples() -> dict[str, Any]:
    """Burraco kinds from the engine, the wild sliding, and the semipulito option."""
    classico = Ruleset.preset("classico")
    semi = Ruleset.preset("classico", semipulito=True)
    no_sets = Ruleset.preset("testa_a_testa")
    return {
        "kinds": [_verdict(cards, classico) for cards in BURRACO_EXAMPLES],
        "slides": slide_examples(),
        "semi_on": _verdict("3H 4H 5H 6H 7H 8H 9H JK", semi),
        "semi_off": _verdict("3H 4H 5H 6H 7H 8H 9H JK", classico),
        "set_without_option": _verdict("8S 8S 8H 8D 8C 8C 8H", no_sets),
        "bonus": BURRACO_BONUS,
    }


def scoring_example() -> dict[str, Any]:
    """A hand closed on the table by the engine: the position, the closing plays and score()."""
    ruleset = Ruleset.preset("classico")
    game = Game.setup(
        ruleset,
        hands=["KD", "AS JK 4D"],
        stock="5H 9C 9D",
        discard="6C",
        pozzetti=[None, "3C 3D 3S 4C 4S 6D 6S 7D 7S 8D 8S"],
        melds=[["3H 4H 5H 6H 7H 8H 9H", "5S 5D 5C"], ["7C 8C 9C"]],
        to_move=0,
    )
    before = {
        "hand": [c.text for c in game.hand(0)],
        "opponent_hand": [c.text for c in game.hand(1)],
        "melds": [[m.texts() for m in game.melds(side)] for side in (0, 1)],
    }
    set_id = game.melds(0)[1].id
    game.apply(0, {"type": "draw"})
    game.apply(0, {"type": "lay_off", "meld": set_id, "cards": ["5H"]})
    game.apply(0, {"type": "discard", "card": "KD"})
    return {**before, "score": game.score(), "end_reason": game.end_reason}


# Burraco Reale (RULES §15): melds judged with the reale preset.
REALE_EXAMPLES = (
    "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "4C 5C 6C 2H 8C 9C TC",
    "9S 9H 9D",
    "5H 6H JK",
)


def reale_rules() -> dict[str, Any]:
    """Burraco Reale's figures and examples, from the engine: its deck, its bonuses, its verdicts."""
    reale = Ruleset.preset("reale")
    deck = len(reale.deck())
    return {
        "deck": deck,
        "stock_2": deck - 2 * HAND_SIZE - 2 * POZZETTO_SIZE - 1,
        "stock_4": deck - 4 * HAND_SIZE - 2 * POZZETTO_SIZE - 1,
        "bonus": {kind: BURRACO_BONUS[kind] for kind in ("reale", "nobile", "pulito", "sporco")},
        "target": reale.target,
        "examples": [_verdict(cards, reale) for cards in REALE_EXAMPLES],
        "dirty_close": engine_text(MESSAGES["clean_burraco_required"]),
    }


def rules_context() -> dict[str, Any]:
    stock_counts = {n: 108 - n * HAND_SIZE - 2 * POZZETTO_SIZE - 1 for n in (2, 4)}
    return {
        "card_points": card_points_rows(),
        "burraco_bonus": BURRACO_BONUS,
        "closing_bonus": CLOSING_BONUS,
        "pozzetto_penalty": POZZETTO_PENALTY,
        "hand_size": HAND_SIZE,
        "pozzetto_size": POZZETTO_SIZE,
        "stock_2": stock_counts[2],
        "stock_4": stock_counts[4],
        "options": options_table(),
        "presets": presets(),
        "refusals": refusals(),
        "meld_examples": meld_examples(),
        "burraco": burraco_examples(),
        "scoring": scoring_example(),
        "reliability": reliability_rule(),
        "reale": reale_rules(),
    }


def reliability_rule() -> dict[str, int]:
    """The figures of the queue's preference for reliable players, as the matcher uses them."""
    return {"min_matches": MIN_MATCHES, "percent": round(RELIABLE_SHARE * 100), "seconds": int(RELIABILITY_MIX_SECONDS),
            "recent": RECENT_MATCHES}
