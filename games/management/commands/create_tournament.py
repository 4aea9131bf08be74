"""Open a tournament for registration (the operators' door; the service checks every option).

    manage.py create_tournament "Giovedì sera" --kind scheduled --capacity 16 --rounds 4 \
        --starts-at 2026-12-03T21:00 --preset classico --players 2
    manage.py create_tournament "Sit and go" --kind sitgo --capacity 8
    manage.py create_tournament "Duplicato" --kind sitgo --capacity 8 --duplicate-deals 3 --scoring vp
"""

from __future__ import annotations

from datetime import datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from games.services import tournaments
from games.services.errors import ServiceError


class Command(BaseCommand):
    help = "Create a Swiss tournament (sit-and-go or scheduled)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--kind", choices=["sitgo", "scheduled"], default="sitgo")
        parser.add_argument("--capacity", type=int, default=8)
        parser.add_argument("--rounds", type=int)
        parser.add_argument("--players", type=int, choices=[2, 4], default=2)
        parser.add_argument("--preset", default="mano_unica")
        parser.add_argument("--target", type=int, choices=[505])
        parser.add_argument("--starts-at", help="local time, ISO format (scheduled events)")
        parser.add_argument("--description", default="")
        parser.add_argument("--duplicate-deals", type=int, default=0,
                            help="duplicate Burraco: deals a round (1-4), the same at every table")
        parser.add_argument("--scoring", choices=["mp", "vp"], default="mp",
                            help="duplicate scoring: match points (a percentage) or victory points")

    def handle(self, *args, **options):
        starts_at = None
        if options["starts_at"]:
            starts_at = datetime.fromisoformat(options["starts_at"])
            if timezone.is_naive(starts_at):
                starts_at = timezone.make_aware(starts_at)
        try:
            t = tournaments.create_tournament(
                name=options["name"], kind=options["kind"], capacity=options["capacity"], rounds=options["rounds"],
                players=options["players"], preset=options["preset"], target=options["target"],
                starts_at=starts_at, description=options["description"],
                duplicate_deals=options["duplicate_deals"], duplicate_scoring=options["scoring"])
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"tournament {t.pk}: /tornei/{t.pk}/")
