"""Check the fair deals of a finished game, hand by hand (docs/fairness.md).

    manage.py verify_deal 42          every hand of game 42
    manage.py verify_deal 42/3        hand 3 only (also: --hand 3)

For each hand it prints the hash announced at its start, the published seed and client seeds,
and the check: the seed's SHA-256 against the hash, then every card of the recorded deal (hands,
pozzetti, first discard, stock) against the cards the seed gives. It exits with status 1 and
says why at the first hand that fails; a hand dealt before fair deals says so and does not fail.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from games.models import Game
from games.selectors.fairness import game_fairness


class Command(BaseCommand):
    help = "Rebuild each hand's deal from its published seed and check it against the hash and the cards dealt."

    def add_arguments(self, parser):
        parser.add_argument("game", help="the game's id, or id/hand")
        parser.add_argument("--hand", type=int, help="only this hand (1, 2, ...)")

    def handle(self, *args, **options):
        game_text, _slash, hand_text = str(options["game"]).partition("/")
        try:
            game_id = int(game_text)
            number = int(hand_text) if hand_text else options["hand"]
        except ValueError:
            raise CommandError(_("Indica la partita come numero, o numero/mano (es. 42/3).")) from None
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise CommandError(_("Partita non trovata."))
        hands = game_fairness(game, number)
        if not hands:
            raise CommandError(_("Questa mano non esiste in questa partita."))
        failed = []
        for hand in hands:
            self.stdout.write(_("Mano %(n)s: %(verdict)s") % {"n": hand.number, "verdict": hand.message})
            self.stdout.write(f"  sha256      {hand.hash or '—'}")
            self.stdout.write(f"  seed        {hand.seed or '—'}")
            self.stdout.write(f"  client      {hand.client_seeds!r}")
            if hand.compared:
                self.stdout.write("  " + _("carte confrontate: %(n)s") % {"n": hand.compared})
            for line in hand.mismatch_lines:
                self.stdout.write(f"  ! {line}")
            if hand.failed:
                failed.append(hand)
        if failed:
            first = failed[0]
            raise CommandError(_("Mano %(n)s: %(verdict)s") % {"n": first.number, "verdict": first.message})
