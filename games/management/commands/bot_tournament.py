"""`python manage.py bot_tournament --a medio --b principiante --games 200 --seed 1 --json`

Computer against computer over whole hands, seats alternating; prints the tally (wins, mean
score difference, decision times per side). The play itself is `games.bots.tournament`.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from games.bots import LEVELS
from games.bots.tournament import run
from games.engine import PRESETS


class Command(BaseCommand):
    help = "Plays computer players against each other and reports wins and decision times."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--a", default="medio", choices=LEVELS, help="level of side A")
        parser.add_argument("--b", default="principiante", choices=LEVELS, help="level of side B")
        parser.add_argument("--games", type=int, default=200, help="hands to play")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--preset", default="classico", choices=sorted(PRESETS))
        parser.add_argument("--players", type=int, default=2, choices=(2, 4))
        parser.add_argument("--budget", type=float, default=None,
                            help="seconds per decision for esperto (default: its own)")
        parser.add_argument("--worlds", type=int, default=None,
                            help="esperto samples exactly this many worlds per decision, ignoring "
                                 "the clock (a repeatable run)")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options) -> None:
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        if options["worlds"] is not None and options["worlds"] < 1:
            raise CommandError("--worlds must be at least 1")
        result = run(options["a"], options["b"], games=options["games"], seed=options["seed"],
                     preset=options["preset"], players=options["players"],
                     budget_seconds=options["budget"], worlds=options["worlds"])
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        a, b = result["decision_ms_a"], result["decision_ms_b"]
        self.stdout.write(
            f"{result['a']} vs {result['b']}: {result['games']} hands, "
            f"{result['wins_a']} won by A, {result['wins_b']} by B, {result['draws']} drawn; "
            f"mean score difference {result['mean_score_diff']}\n"
            f"decision ms A median {a['median']} p99 {a['p99']}; B median {b['median']} p99 {b['p99']}\n"
            f"games digest {result['digest']}"
        )
