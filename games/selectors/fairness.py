"""Reading fair deals back (docs/fairness.md): each hand's commitment, and once the hand is over
its seed and the check of its recorded deal against the seed (`engine.check_deal`).

The one rule of this module: a hand's seed is read only when the hand is over (`Hand.finished_at`
set, or the match finished). While it is played, the pages show its hash and nothing else. A
duplicate tournament's hand is over for this purpose only when its round is: every table of the
round deals from the same seeds, and a table that has finished a deal must not show its seed to
the ones still playing it (`HELD`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from games.engine import CHECK_MESSAGES, DealCheck, FairSeed, IllegalMove, Mismatch, Ruleset, cards_text, check_deal
from games.engine.deal import lay_out
from games.models import Game, Hand, TournamentPairing

IN_PLAY = "in_play"
HELD = "held"  # a duplicate round's hand: its seed waits for the round's end
MISMATCHES_SHOWN = 5  # the first cards that differ, on the page and in the command's output


@dataclass
class HandFairness:
    """One hand as the verify page and `verify_deal` show it."""

    number: int
    over: bool
    hash: str | None
    client_seeds: list[str]
    seed: str | None  # None while the hand is in play, or for a hand dealt without one
    code: str  # a key of engine CHECK_MESSAGES, or IN_PLAY
    compared: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    announced_before: str | None = None  # this hand's hash as the hand before announced it
    next_hash: str | None = None  # the hash this hand announced for the next one

    @property
    def ok(self) -> bool:
        return self.code == "ok"

    @property
    def failed(self) -> bool:
        """A check that found something wrong (an old hand or one in play has not failed)."""
        return self.code not in ("ok", "no_commitment", IN_PLAY, HELD)

    @property
    def message(self) -> str:
        return verdict_text(self.code)

    @property
    def mismatch_lines(self) -> list[str]:
        return [mismatch_text(m) for m in self.mismatches[:MISMATCHES_SHOWN]]


def verdict_text(code: str) -> str:
    """The sentence for a check's code, in the active language."""
    if code == IN_PLAY:
        return _("Mano in corso: il seme sarà pubblicato quando la mano finisce")
    if code == HELD:
        return _("Torneo duplicato: il seme sarà pubblicato quando tutti i tavoli del turno avranno giocato "
                 "questa smazzata")
    return _(CHECK_MESSAGES[code])


def mismatch_text(m: Mismatch) -> str:
    """One card that differs, for people: where it lies, what was dealt, what the seed gives."""
    if m.pile == "hands":
        where = _("mano del posto %(n)s") % {"n": m.owner + 1}
    elif m.pile == "pozzetti":
        where = _("pozzetto della parte %(side)s") % {"side": "AB"[m.owner] if m.owner in (0, 1) else m.owner}
    elif m.pile == "discard":
        where = _("primo scarto")
    else:
        where = _("tallone")
    return _("%(where)s, carta %(index)s: distribuita %(recorded)s, dal seme %(derived)s") % {
        "where": where, "index": m.index + 1, "recorded": m.recorded or "—", "derived": m.derived or "—"}


def _is_over(hand: Hand, game: Game) -> bool:
    return hand.finished_at is not None or game.finished


def _commitment(hand: Hand) -> dict[str, Any]:
    recorded = hand.deal.get("commitment") if isinstance(hand.deal, dict) else None
    return recorded if isinstance(recorded, dict) else {}


def hand_fairness(hand: Hand, game: Game, announced_before: str | None = None, *, held: bool = False) -> HandFairness:
    """The commitment of one hand and, once it is over, the check of its deal (and of its hash
    against `announced_before`, the next hand's hash that the hand before announced). `held`: the
    hand belongs to a duplicate round still in play, so its seed stays secret even when over."""
    commitment = _commitment(hand)
    over = _is_over(hand, game) and not held
    found = HandFairness(hand.number, over, commitment.get("hash"), list(commitment.get("client_seeds", [])),
                         None, "no_commitment", announced_before=announced_before,
                         next_hash=commitment.get("next_hash"))
    if not commitment:
        return found
    if announced_before is not None and found.hash != announced_before:
        found.code = "chain_mismatch"  # hashes only: seen even while the hand is played
        return found
    if not over:
        found.code = HELD if held and _is_over(hand, game) else IN_PLAY
        return found
    found.seed = hand.seed
    verdict = check_deal(hand.deal, hand.seed, announced_before=announced_before)
    found.code, found.compared, found.mismatches = verdict.code, verdict.compared, list(verdict.mismatches)
    return found


def game_fairness(game: Game, number: int | None = None) -> list[HandFairness]:
    """Every hand of a game (or hand `number` only), in order. The next hand's seed, drawn ahead,
    is never read here: only its hash, from the deal."""
    hands = Hand.objects.filter(game=game).defer("next_seed").order_by("number")
    if number is not None:
        hands = hands.filter(number__in=(number - 1, number))
    found = []
    announced = None
    held = bool(TournamentPairing.held_tables([game.table_id]))
    for hand in hands:
        if number is None or hand.number == number:
            found.append(hand_fairness(hand, game, announced, held=held))
        announced = _commitment(hand).get("next_hash")
    return found


@dataclass
class PastedCheck:
    """The verify form's answer: the check, and the deal the seed makes when it is a valid one."""

    code: str
    computed_hash: str | None = None
    deal: dict[str, Any] | None = None

    @property
    def message(self) -> str:
        if self.code == "hash_mismatch":  # nothing recorded here: only the seed and the hash disagree
            return _("Il seme non ha l'impronta indicata")
        return verdict_text(self.code)


def check_pasted(seed_hex: str, client_seeds_text: str, announced_hash: str, players: int,
                 preset: str = "classico") -> PastedCheck:
    """Anyone's own check: seed + client seeds (one a line, in seat order, missing lines empty, as
    the site records one per seat) + hash → the hash the seed has and the deal it makes (hands,
    pozzetti, first discard, stock)."""
    client_seeds = client_seeds_text.splitlines()
    if len(client_seeds) > players:
        return PastedCheck("bad_client_seed")
    client_seeds += [""] * (players - len(client_seeds))
    try:
        fair = FairSeed.from_hex(seed_hex, client_seeds)
    except IllegalMove as refused:
        return PastedCheck(refused.code)
    ruleset = Ruleset.preset(preset)
    deal = lay_out(cards_text(fair.deck(ruleset.deck())), players)  # Burraco Reale: 104 cards
    recorded = {"commitment": fair.commitment(), "ruleset": ruleset.to_dict(), **deal}
    verdict: DealCheck = check_deal(recorded, fair.seed_hex, announced_hash=announced_hash or fair.hash)
    return PastedCheck(verdict.code, fair.hash, deal)
