"""Fill a separate database at size and time the site pages server-side (docs/performance.md).

    python manage.py bench_site --json

With DATABASE_URL on PostgreSQL it creates a fresh database (default "burraco_bench", dropped
at the end unless --keep) through Django's test-database machinery, so every migration and
index is there; on SQLite it uses a temporary file. It fills players, finished matches with
their seats and hands, and rating changes (COPY on PostgreSQL, executemany on SQLite), then
times each page through the Django test client (middleware and templates included, no network)
and reports the median server time and the query count of each.

The matches: a few dozen are really played by the random engine policy and recorded with
their moves (games/benchmarks/sample_games.py); the rest copy the hands (deal and score) of one
of those, with their own players, dates and ratings. Ratings are computed by replaying the ELO
rules of games/services/history/ratings.py over the matches in date order, so every rating, peak,
record and change chain is consistent. One change per player per match means a match yields at
most 4 changes: when --changes needs more matches than --games, more matches are stored (and
reported), never fewer.
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.management.base import BaseCommand
from django.db import connection
from django.db.models import Count, Max
from django.test import Client
from django.test.utils import override_settings

from games.benchmarks.machine import machine
from games.benchmarks.sample_games import record_sample_match
from games.models import Game, Hand, RatingChange, Seat, Table
from games.selectors.leaderboards import PER_PAGE, START_RATING, ranked
from games.services.history.ratings import expected_score, k_factor

NAMES = (
    "marco", "giulia", "luca", "francesca", "andrea", "chiara", "matteo", "sara", "alessandro", "valentina",
    "davide", "elena", "simone", "martina", "federico", "silvia", "lorenzo", "anna", "stefano", "laura",
    "paolo", "roberta", "giorgio", "paola", "riccardo", "marta", "nicola", "ilaria", "fabio", "monica",
    "carlo", "elisa", "enrico", "giada", "franco", "teresa", "pietro", "rita", "tommaso", "bianca",
)
TEMPLATES = (  # (players, preset, overrides, how many)
    (2, "mano_unica", {}, 10), (2, "testa_a_testa", {}, 6), (2, "classico", {"target": 505}, 6),
    (4, "classico", {"target": 505}, 10), (4, "classico", {"target": None}, 4), (4, "classico", {"target": 1005}, 2),
)
CHUNK = 20_000
PAIRS_SHARE = 0.3


class Sink:
    """Bulk rows into tables: COPY on PostgreSQL, executemany on SQLite."""

    def __init__(self) -> None:
        connection.ensure_connection()
        self.pg = connection.vendor == "postgresql"

    def write(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
        cols = ", ".join(columns)
        n = 0
        if self.pg:
            with connection.connection.cursor() as cur, cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
                    n += 1
            return n
        adapt = connection.ops.adapt_datetimefield_value
        marks = ", ".join(["%s"] * len(columns))
        batch: list[tuple] = []
        with connection.cursor() as cur:
            for row in rows:
                batch.append(tuple(adapt(v) if isinstance(v, datetime) else v for v in row))
                if len(batch) >= 5000:
                    cur.executemany(f"INSERT INTO {table} ({cols}) VALUES ({marks})", batch)
                    n += len(batch)
                    batch = []
            if batch:
                cur.executemany(f"INSERT INTO {table} ({cols}) VALUES ({marks})", batch)
                n += len(batch)
        return n

    def finish(self, tables: Sequence[str]) -> None:
        """Move the id sequences past the ids written by hand, and refresh the planner's stats."""
        if not self.pg:
            with connection.cursor() as cur:
                cur.execute("ANALYZE")
            return
        with connection.cursor() as cur:
            for table in tables:
                cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                            f"COALESCE((SELECT MAX(id) FROM {table}), 1))")
            if connection.in_atomic_block:  # a test's transaction: VACUUM cannot run there
                cur.execute("ANALYZE")
            else:
                cur.execute("VACUUM ANALYZE")  # and the visibility map, for index-only scans


class Filler:
    def __init__(self, players: int, changes: int, games: int, seed: int, out, recorded: int = 10) -> None:
        self.players, self.changes, self.games = players, changes, games
        self.recorded = recorded
        self.rng = random.Random(seed)
        self.out = out
        self.sink = Sink()
        self.counts: dict[str, int] = {}

    def log(self, text: str) -> None:
        if self.out:
            self.out(text)

    # ------------------------------------------------------------------ players
    def fill_users(self) -> tuple[int, int]:
        from django.contrib.auth import get_user_model

        User = get_user_model()
        first = (User.objects.aggregate(m=Max("id"))["m"] or 0) + 1
        now = datetime.now(UTC)
        joined = now - timedelta(days=800)

        def rows():
            for i in range(self.players):
                uid = first + i
                name = f"{NAMES[i % len(NAMES)]}{i // len(NAMES) + 1}"
                yield (uid, "!", None, False, name, "", "", f"{name}@bench.example", False, True,
                       joined + timedelta(minutes=i), "it", True, "", "")

        self.counts["players"] = self.sink.write(
            User._meta.db_table,
            ["id", "password", "last_login", "is_superuser", "username", "first_name", "last_name", "email",
             "is_staff", "is_active", "date_joined", "language", "sound_on", "quick_preset", "quick_level"],
            rows(),
        )
        return first, first + self.players - 1

    # ------------------------------------------------------------------ template matches
    def record_templates(self, first_user: int) -> dict[int, list[dict[str, Any]]]:
        from django.contrib.auth import get_user_model

        people = list(get_user_model().objects.filter(id__gte=first_user).order_by("id")[:4])
        templates: dict[int, list[dict[str, Any]]] = {2: [], 4: []}
        seed = itertools.count(1)
        for players, preset, overrides, count in TEMPLATES:
            for _ in range(min(count, self.recorded)):
                game = record_sample_match(people[:players], preset=preset, seed=next(seed), rated=False, **overrides)
                hands = list(Hand.objects.filter(game=game).order_by("number"))
                templates[players].append({
                    "preset": preset,
                    "options": json.dumps(game.table.options),
                    "result": game.result,
                    "winner": game.winner_side,
                    "hands": [(h.number, json.dumps(h.deal), json.dumps(h.score)) for h in hands],
                    "totals": game.totals,
                })
        self.counts["recorded_matches"] = len(templates[2]) + len(templates[4])
        return templates

    # ------------------------------------------------------------------ matches and ratings
    def fill_matches(self, first_user: int, last_user: int, templates: dict[int, list[dict[str, Any]]]) -> None:
        rng = self.rng
        # PAIRS_SHARE of the matches are pairs: 2 + 2 × share changes per match on average.
        total = max(self.games, int(-(-self.changes // (2 + 2 * PAIRS_SHARE))))
        fours = self.changes - 2 * total  # matches of 4 needed for the exact number of changes
        fours = max(0, min(total, fours // 2))
        kinds = [4] * fours + [2] * (total - fours)
        rng.shuffle(kinds)
        # Activity is skewed: a few players play a lot (long histories), most play little.
        weights = [1.0 / (i + 50) ** 0.7 for i in range(self.players)]
        cumulative = list(itertools.accumulate(weights))
        top = cumulative[-1]
        ids = {
            "table": (Table.objects.aggregate(m=Max("id"))["m"] or 0) + 1,
            "seat": (Seat.objects.aggregate(m=Max("id"))["m"] or 0) + 1,
            "game": (Game.objects.aggregate(m=Max("id"))["m"] or 0) + 1,
            "hand": (Hand.objects.aggregate(m=Max("id"))["m"] or 0) + 1,
            "change": (RatingChange.objects.aggregate(m=Max("id"))["m"] or 0) + 1,
        }
        state: dict[tuple[int, str], list[float]] = {}  # rating, peak, games, wins, draws, losses
        now = datetime.now(UTC)
        start = now - timedelta(days=730)
        step = timedelta(days=729) / max(1, total)
        counts = {"matches": 0, "hands": 0, "rating_changes": 0, "seats": 0}

        for chunk_start in range(0, total, CHUNK):
            t_rows, s_rows, g_rows, h_rows, c_rows = [], [], [], [], []
            for index in range(chunk_start, min(total, chunk_start + CHUNK)):
                n = kinds[index]
                mode = "4p" if n == 4 else "2p"
                chosen: list[int] = []
                while len(chosen) < n:
                    uid = first_user + bisect.bisect_left(cumulative, rng.random() * top)
                    if uid <= last_user and uid not in chosen:
                        chosen.append(uid)
                template = templates[n][rng.randrange(len(templates[n]))]
                when = start + step * index
                table_id, game_id = ids["table"], ids["game"]
                ids["table"] += 1
                ids["game"] += 1
                t_rows.append((table_id, chosen[0], n, template["preset"], template["options"], 30, 60, 45, True,
                               False, f"bench{table_id}", "finished", when - timedelta(minutes=40),
                               when - timedelta(minutes=35), when))
                for pos, uid in enumerate(chosen):
                    s_rows.append((ids["seat"], table_id, pos, uid, "", 0, False, 0, 40))
                    ids["seat"] += 1
                winner = template["winner"]
                g_rows.append((game_id, table_id, len(template["hands"]), "{}", json.dumps(template["totals"]), 0,
                               None, None, True, winner, json.dumps(template["result"]), None,
                               when - timedelta(minutes=35), when, when))
                for number, deal, score in template["hands"]:
                    h_rows.append((ids["hand"], game_id, number, deal, score, when - timedelta(minutes=30), when))
                    ids["hand"] += 1
                # ELO, exactly as games/services/history/ratings.py does it.
                sides = {0: chosen[0::2], 1: chosen[1::2]}
                current = {uid: state.setdefault((uid, mode), [START_RATING, START_RATING, 0, 0, 0, 0])
                           for uid in chosen}
                mean = {s: sum(current[u][0] for u in us) / len(us) for s, us in sides.items()}
                for side, members in sides.items():
                    score = 0.5 if winner is None else (1.0 if winner == side else 0.0)
                    expected = expected_score(mean[side], mean[1 - side])
                    for uid in members:
                        st = current[uid]
                        before = st[0]
                        after = before + k_factor(int(st[2]), st[1]) * (score - expected)
                        st[0], st[1], st[2] = after, max(st[1], after), st[2] + 1
                        st[3 if score == 1.0 else 5 if score == 0.0 else 4] += 1
                        c_rows.append((ids["change"], uid, game_id, mode, before, after, score, when))
                        ids["change"] += 1
            counts["matches"] += self.sink.write(
                "games_table",
                ["id", "creator_id", "players", "preset", "options", "draw_seconds", "play_seconds",
                 "disconnect_grace_seconds", "rated", "private", "invite_token", "status", "created_at",
                 "started_at", "finished_at"], t_rows)
            counts["seats"] += self.sink.write(
                "games_seat",
                ["id", "table_id", "position", "user_id", "bot_level", "consecutive_timeouts",
                 "covered_by_computer", "covered_moves", "own_moves"], s_rows)
            self.sink.write(
                "games_game",
                ["id", "table_id", "hand_number", "state", "totals", "version", "to_move", "turn_deadline",
                 "finished", "winner_side", "result", "abandoned_by_id", "created_at", "updated_at",
                 "finished_at"], g_rows)
            counts["hands"] += self.sink.write(
                "games_hand", ["id", "game_id", "number", "deal", "score", "started_at", "finished_at"], h_rows)
            counts["rating_changes"] += self.sink.write(
                "games_ratingchange", ["id", "user_id", "game_id", "mode", "before", "after", "score", "created_at"],
                c_rows)
            self.log(f"  {counts['matches']} / {total} matches")
        self.sink.write(
            "games_playerrating",
            ["user_id", "mode", "rating", "peak", "games", "wins", "draws", "losses", "updated_at"],
            ((uid, mode, st[0], st[1], int(st[2]), int(st[3]), int(st[4]), int(st[5]), now)
             for (uid, mode), st in state.items()))
        self.counts.update(counts)
        self.counts["ratings"] = len(state)

    def run(self) -> dict[str, Any]:
        started = time.perf_counter()
        first, last = self.fill_users()
        self.log(f"players: {self.counts['players']}")
        templates = self.record_templates(first)
        self.log(f"recorded matches: {self.counts['recorded_matches']}")
        self.fill_matches(first, last, templates)
        self.sink.finish(["accounts_user", "games_table", "games_seat", "games_game", "games_hand",
                          "games_ratingchange", "games_playerrating"])
        self.counts["seconds"] = round(time.perf_counter() - started, 1)
        return self.counts


# ---------------------------------------------------------------------- timing


def pick_targets() -> dict[str, str]:
    """The URLs to time, chosen from the filled data."""

    busiest = (RatingChange.objects.values("user_id").annotate(n=Count("id")).order_by("-n").first()
               or {"user_id": None})
    from django.contrib.auth import get_user_model

    heavy = get_user_model().objects.filter(pk=busiest["user_id"]).values_list("username", flat=True).first()
    total = ranked("2p").count()
    last_page = max(1, -(-total // PER_PAGE))
    board = ranked("2p").order_by("-rating", "user_id").values_list("user__username", flat=True)
    middle = board[total // 2: total // 2 + 1]
    prefix = (list(middle) or [heavy or "marco"])[0][:-1] or "m"
    game = (Game.objects.filter(finished=True, table__players=4).annotate(h=Count("hands")).filter(h__gte=2)
            .order_by("-id").values_list("id", flat=True).first()
            or Game.objects.filter(finished=True).order_by("-id").values_list("id", flat=True).first())
    return {
        "leaderboard_first_page": "/classifiche/?modo=2p",
        "leaderboard_deep_page": f"/classifiche/?modo=2p&pagina={last_page}",
        "player_search": f"/classifiche/?modo=2p&q={prefix}",
        "profile_with_chart": f"/giocatori/{heavy}/",
        "history_by_player": f"/storico/?giocatore={heavy}",
        "history_first_page": "/storico/",
        "game_page": f"/storico/partita/{game}/",
    }


class QueryCounter(list):
    """A database execute wrapper that keeps the SQL of every query run through it."""

    def __call__(self, execute, sql, params, many, context):
        self.append(sql)
        return execute(sql, params, many, context)


def time_pages(targets: dict[str, str], repeat: int) -> dict[str, dict[str, Any]]:
    client = Client(HTTP_HOST="localhost")
    results = {}
    for name, url in targets.items():
        queries = QueryCounter()
        with connection.execute_wrapper(queries):
            response = client.get(url, secure=True)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
        samples = []
        with override_settings(DEBUG=False):  # no query logging while timing, as in production
            client.get(url, secure=True)  # warm
            for _ in range(repeat):
                t0 = time.perf_counter()
                client.get(url, secure=True)
                samples.append((time.perf_counter() - t0) * 1000)
        results[name] = {
            "url": url,
            "median_ms": round(statistics.median(samples), 2),
            "max_ms": round(max(samples), 2),
            "queries": len(queries),
        }
    return results


class Command(BaseCommand):
    help = "Fill a separate database with players, matches and rating changes, then time the site pages."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--players", type=int, default=100_000)
        parser.add_argument("--changes", type=int, default=1_000_000)
        parser.add_argument("--games", type=int, default=200_000)
        parser.add_argument("--repeat", type=int, default=15, help="timed requests per page")
        parser.add_argument("--seed", type=int, default=2026)
        parser.add_argument("--recorded", type=int, default=10,
                            help="at most this many really played matches of each kind to copy hands from")
        parser.add_argument("--db-name", default="burraco_bench", help="PostgreSQL database to create")
        parser.add_argument("--keep", action="store_true", help="leave the bench database in place")
        parser.add_argument("--in-place", action="store_true",
                            help="fill the current database instead of a new one (tests only)")
        parser.add_argument("--json", action="store_true", help="print the results as JSON")

    def handle(self, *args, **options) -> None:
        quiet = options["json"]
        say = None if quiet else (lambda text: self.stdout.write(text))
        old_name = None
        creation = connection.creation
        if not options["in_place"]:
            test_settings = connection.settings_dict.setdefault("TEST", {})
            if connection.vendor == "sqlite":
                test_settings["NAME"] = os.path.join(tempfile.mkdtemp(prefix="burraco-bench-"), "bench.sqlite3")
            else:
                test_settings["NAME"] = options["db_name"]
            if say:
                say(f"creating {test_settings['NAME']} ...")
            old_name = connection.settings_dict["NAME"]
            creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            fill = Filler(options["players"], options["changes"], options["games"], options["seed"], say,
                          options["recorded"]).run()
            pages = time_pages(pick_targets(), options["repeat"])
        finally:
            if old_name is not None and not options["keep"]:
                creation.destroy_test_db(old_name, verbosity=0)
        report = {"machine": machine(), "database": connection.vendor, "fill": fill, "pages": pages}
        if quiet:
            self.stdout.write(json.dumps(report, indent=1))
            return
        self.stdout.write(f"fill: {fill}")
        for name, page in pages.items():
            self.stdout.write(
                f"{name:24} {page['median_ms']:8.2f} ms median  {page['queries']:3d} queries  {page['url']}")
