"""Duplicate Burraco: the scoring library against a computation of the test's own written from
the rules page's words, then duplicate events run through the services (every seat played by its
own person, a beginner's choices, the rounds paired by the scheduler's pass): every table of a
round gets the same cards at the same seats, the standings equal an independent tally of the
hands' own scores, and nothing of a round's deals leaks before the round ends (replay, seed,
verification, spectators, the lobby's list, the tournament's page)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from django.core.management import call_command
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots import choose_action
from games.engine import Game as EngineGame
from games.engine import IllegalMove, Ruleset, duplicate
from games.engine.duplicate import DealResult, deal_scores
from games.live import sockets
from games.models import Game, Hand, Table, Tournament, TournamentPairing, TournamentRound
from games.selectors import tournaments as selectors
from games.selectors.fairness import check_pasted, game_fairness
from games.selectors.lobby import open_tables
from games.services import tournaments
from games.services.errors import ServiceError
from tests.games.helpers import capture, make_user
from tests.tournaments.test_services import people, play_out, refused, seated
from tests.tournaments.test_swiss import my_points

# ----------------------------------------------------------------------------- an independent tally


def my_deal_scores(rows: list[tuple[int, int, int, int, int | None, int, int]], scoring: str) -> dict:
    """(round, deal, table, a, b, points a, points b) rows → {(round, deal, entrant): score},
    straight from the rules page: each side's difference is compared with the same seats' at the
    other tables of the deal. A bye (b None) scores an average result."""
    by_deal: dict[tuple[int, int], list[tuple[int, int, int | None, int]]] = {}
    out: dict[tuple[int, int, int], Fraction] = {}
    for rnd, deal, table, a, b, pa, pb in rows:
        if b is None:
            out[(rnd, deal, a)] = Fraction(50) if scoring == "mp" else Fraction(10)
        else:
            by_deal.setdefault((rnd, deal), []).append((table, a, b, pa - pb))
    for (rnd, deal), tables in by_deal.items():
        for table, a, b, diff in tables:
            for entrant, mine, theirs in ((a, diff, [d for t, _a, _b, d in tables if t != table]),
                                          (b, -diff, [-d for t, _a, _b, d in tables if t != table])):
                if scoring == "mp":
                    if not theirs:
                        score = Fraction(50)
                    else:
                        won = sum(1 for x in theirs if mine > x)
                        tied = sum(1 for x in theirs if mine == x)
                        score = Fraction(100 * (2 * won + tied), 2 * len(theirs))
                else:
                    average = Fraction(mine + sum(theirs), len(theirs) + 1)
                    score = Fraction(my_points(mine - average)[0])
                out[(rnd, deal, entrant)] = score
    return out


def my_order(scores: dict, ratings: dict[int, float]) -> list[int]:
    total = dict.fromkeys(ratings, Fraction(0))
    for (_r, _d, entrant), score in scores.items():
        total[entrant] += score
    return sorted(ratings, key=lambda e: (-total[e], -ratings[e], e))


deal_rows = st.lists(st.tuples(st.integers(1, 2), st.integers(1, 3), st.integers(-800, 1600),
                               st.integers(-800, 1600)), min_size=1, max_size=10)


@given(deal_rows, st.sampled_from(duplicate.SCORINGS))
@settings(max_examples=200, deadline=None)
def test_the_library_equals_the_rules_pages_words(rows, scoring):
    results, mine = [], []
    for table, (rnd, deal, pa, pb) in enumerate(rows, start=1):
        a, b = 2 * table, 2 * table + 1
        results.append(DealResult(rnd, deal, table, a, b, pa, pb))
        mine.append((rnd, deal, table, a, b, pa, pb))
    got = {(s.round, s.deal, s.entrant): s.score for s in deal_scores(results, scoring)}
    assert got == my_deal_scores(mine, scoring)
    # The two sides of a table always share the table's worth: 100 % or 20 victory points.
    for r in results:
        assert got[(r.round, r.deal, r.a)] + got[(r.round, r.deal, r.b)] == (100 if scoring == "mp" else 20)


def test_match_points_by_hand():
    # One deal at four tables: seats 0-2 made +300, +300, -50, +900 (ties share).
    results = [DealResult(1, 1, t, 10 + t, 20 + t, d, 0) for t, d in enumerate((300, 300, -50, 900))]
    scores = {s.entrant: s for s in deal_scores(results)}
    assert [(scores[10 + t].match_points, scores[10 + t].top) for t in range(4)] == [(3, 6), (3, 6), (0, 6), (6, 6)]
    assert [scores[10 + t].score for t in range(4)] == [50, 50, 0, 100]
    assert [scores[20 + t].score for t in range(4)] == [50, 50, 100, 0]
    # A forfeit: 0 to who abandoned, the top to the others, and the table out of the comparison.
    results.append(DealResult(1, 1, 9, 19, 29, 5000, 0, forfeit=19))
    again = {s.entrant: s.score for s in deal_scores(results)}
    assert (again[19], again[29]) == (0, 100) and again[13] == 100
    with pytest.raises(ValueError):
        deal_scores(results, "xx")


def test_a_fixed_number_of_hands_ends_the_match():
    ruleset = Ruleset.preset("mano_unica", hands=3)
    assert Ruleset.from_dict(ruleset.to_dict()) == ruleset
    rng = random.Random(3)
    game = EngineGame.new(ruleset, rng=rng, first_player=1)
    firsts = []
    while True:
        firsts.append(game.first_player)
        while not game.hand_over:
            game.apply(game.to_move, choose_action(game.view(game.to_move), "principiante", rng))
        if game.match.finished:
            break
        game = game.next_hand(rng)
    assert game.hand_number == 2 and firsts == [1, 0, 1]  # three hands, the first player rotating
    for bad in ({"hands": 0}, {"hands": 9}, {"hands": 2, "target": 505}, {"hands": True}):
        with pytest.raises(IllegalMove) as it:
            Ruleset.preset("mano_unica", **bad)
        assert it.value.code == "bad_option"


# ----------------------------------------------------------------------------- events through the services

pytestmark = pytest.mark.django_db


def dealt(table_id: int) -> list[dict]:
    """The cards of each hand dealt at a table, in hand order (hands, pozzetti, discard, stock),
    with who played first and the announced hash: what must be the same at every table."""
    game = Game.objects.get(table_id=table_id)
    return [{k: h.deal[k] for k in ("hands", "pozzetti", "discard", "stock", "to_move")}
            | {"hash": h.deal["commitment"]["hash"], "client_seeds": h.deal["commitment"]["client_seeds"]}
            for h in Hand.objects.filter(game=game).order_by("number")]


def raw_rows(t: Tournament) -> list[tuple]:
    """(round, deal, table, a, b, points a, points b) from the hands' own stored scores (not the
    pairings' copy), byes one row per deal."""
    rows = []
    for p in TournamentPairing.objects.filter(round__tournament=t).select_related("round").order_by("pk"):
        if p.entry_b_id is None:
            rows += [(p.round.number, d, 0, p.entry_a_id, None, 0, 0) for d in range(1, t.duplicate_deals + 1)]
            continue
        for h in Hand.objects.filter(game__table_id=p.table_id).order_by("number"):
            rows.append((p.round.number, h.number, p.table_id, p.entry_a_id, p.entry_b_id,
                         h.score[0]["total"], h.score[1]["total"]))
    return rows


def check_same_deals(t: Tournament) -> int:
    """Every table of each round got the same cards from the same seats; returns the tables seen."""
    seen = 0
    for rnd in TournamentRound.objects.filter(tournament=t):
        tables = [p.table_id for p in rnd.pairings.all() if p.table_id]
        deals = [dealt(x) for x in tables]
        assert len(deals[0]) == t.duplicate_deals
        assert all(d == deals[0] for d in deals), f"round {rnd.number}: the tables got different deals"
        assert all(set(h["client_seeds"]) == {""} for h in deals[0])  # no client seed at a duplicate table
        # The seeds of the round, in deal order, are the ones dealt from (checked once published).
        for hand, seed in zip(deals[0], rnd.seeds, strict=True):
            assert duplicate_hash(seed) == hand["hash"]
        seen += len(tables)
    return seen


def duplicate_hash(seed_hex: str) -> str:
    import hashlib

    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def check_standings(t: Tournament) -> None:
    t.refresh_from_db()
    entries = list(t.entries.all())
    mine = my_deal_scores(raw_rows(t), t.duplicate_scoring)
    order = my_order(mine, {e.pk: e.rating for e in entries})
    shown = selectors.standings(t)
    assert [r["entry"] for r in shown] == order
    totals = dict.fromkeys(order, Fraction(0))
    for (_r, _d, entrant), score in mine.items():
        totals[entrant] += score
    assert {r["entry"]: r["total"] for r in shown} == {e: duplicate.shown(v) for e, v in totals.items()}
    assert {e.pk: e.final_rank for e in entries} == {e: i for i, e in enumerate(order, start=1)}
    # The per-deal table shows every deal of every table, with each side's score.
    table = selectors.deal_table(t)
    per_deal = {(r["number"], row["deal"], row["a"]): row["score_a"] for r in table for row in r["rows"]}
    names = {e.pk: selectors.entry_name(e) for e in entries}
    for (rnd, deal, entrant), score in mine.items():
        if (rnd, deal, names[entrant]) in per_deal:
            assert per_deal[(rnd, deal, names[entrant])] == duplicate.shown(score)
    assert sum(len(r["rows"]) for r in table) == len(raw_rows(t))


def test_creation_refusals_change_nothing(monkeypatch):
    capture(monkeypatch)
    make = tournaments.create_tournament
    for kwargs, code, english in [({"duplicate_deals": 5}, "bad_deals", "1 to 4 deals"),
                                  ({"duplicate_deals": 2, "target": 505}, "duplicate_single_hands", "single hand"),
                                  ({"duplicate_deals": 2, "duplicate_scoring": "xx"}, "bad_scoring", "victory points")]:
        refused(code, lambda kw=kwargs: make(name="D", kind="sitgo", capacity=8, **kw), english)
    assert Tournament.objects.count() == 0
    with pytest.raises(ServiceError):
        make(name="D", kind="sitgo", capacity=8, duplicate_deals=True)


def test_a_duplicate_sit_and_go_of_eight_keeps_its_deals_secret_until_each_round_ends(monkeypatch):
    capture(monkeypatch)
    t = tournaments.create_tournament(name="Duplicato", kind="sitgo", capacity=8, duplicate_deals=2,
                                      duplicate_scoring="mp")
    folk = people(8, "d")
    for person in folk:
        tournaments.register(tournament_id=t.pk, user=person)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING and t.rounds == 3
    rng = random.Random(33)
    first = list(TournamentPairing.objects.filter(round__tournament=t, round__number=1).select_related("table"))
    assert len(first) == 4 and all(Table.objects.get(pk=p.table_id).options["hands"] == 2 for p in first)
    # One table plays both deals to the end; the three others are still on them.
    done = play_out(first[0].table, rng, seated(first[0].table))
    assert done.finished and done.result["hands"] == 2
    outsider, rival = make_user("guardone"), seated(first[1].table)[0]
    web = Client()
    for viewer in (outsider, rival, seated(first[0].table)[0]):
        web.force_login(viewer)
        for url in (f"/storico/partita/{done.pk}/replay/", f"/storico/partita/{done.pk}/verifica/",
                    f"/storico/partita/{done.pk}/", f"/storico/partita/{done.pk}/mosse.json"):
            page = web.get(url)
            assert page.status_code == 403, (url, page.status_code)
            body = page.content.decode()
            assert "tutti i tavoli" in body
            for h in Hand.objects.filter(game=done):
                assert h.seed not in body
    # The seed is held by the checks too (the command and the verify page read this).
    assert [h.code for h in game_fairness(done)] == ["held", "held"]
    assert all(h.seed is None for h in game_fairness(done))
    # Spectating any table of the round is closed, on the page and on the socket; the lobby does
    # not list them; the tournament's page shows no score of the round.
    web.force_login(outsider)
    for p in first:
        assert web.get(f"/tavolo/{p.table_id}/").status_code == 403
        assert sockets.open_socket(p.table_id, outsider, None, "s1", 5)["refused"] == "forbidden"
    assert sockets.open_socket(first[1].table_id, rival, None, "s2", 5)["refused"] is None  # a player's own seat
    assert not {p.table_id for p in first} & {x.pk for x in open_tables()}
    assert f"/storico/partita/{done.pk}/" not in web.get("/storico/").content.decode()  # not listed yet
    frame = selectors.tournament_frame(t)
    assert all(row["score_a"] is None and row["held"] for row in frame["rounds_played"][0]["tables"])
    assert frame["deals"] == [] and all(r["total"] == "0" for r in frame["standings"])
    page = web.get(f"/tornei/{t.pk}/").content.decode()
    assert 'class="score"' not in page and f"/tavolo/{first[1].table_id}/" not in page

    # Every table played out, round after round; each round's seeds published when it ends.
    for number in (1, 2, 3):
        for p in TournamentPairing.objects.filter(round__tournament=t, round__number=number).select_related("table"):
            if not Game.objects.get(table=p.table).finished:
                play_out(p.table, rng, seated(p.table))
        assert TournamentRound.objects.get(tournament=t, number=number).finished_at is None
        advanced = tournaments.advance()
        assert advanced == ({"started": 0, "rounds": 1, "finished": 0} if number < 3
                            else {"started": 0, "rounds": 0, "finished": 1})
        if number == 1:
            replay = web.get(f"/storico/partita/{done.pk}/replay/")
            assert replay.status_code == 200
            assert Hand.objects.get(game=done, number=1).seed in replay.content.decode()
            assert [h.code for h in game_fairness(done)] == ["ok", "ok"]
            call_command("verify_deal", str(done.pk))  # raises on a failed check
            # Anyone's own check from the published seed alone (no client seeds) deals these cards.
            hand = Hand.objects.get(game=done, number=2)
            pasted = check_pasted(hand.seed, "", hand.deal["commitment"]["hash"], 2, "mano_unica")
            assert pasted.code == "ok" and pasted.deal["hands"] == hand.deal["hands"]
            assert pasted.deal["stock"] == hand.deal["stock"]
            assert f"/storico/partita/{done.pk}/" in web.get("/storico/").content.decode()
            assert web.get(f"/tavolo/{first[1].table_id}/").status_code == 200
    assert check_same_deals(t) == 12
    check_standings(t)
    # Later rounds were paired by the duplicate totals: round 2's first table holds the two
    # leaders after round 1 (by total, then rating, then registration).
    page = web.get(f"/tornei/{t.pk}/").content.decode()
    assert 'id="deal-results"' in page and "Smazzata" in page


def test_a_scheduled_duplicate_for_pairs_with_victory_points(monkeypatch):
    from datetime import timedelta

    from games.live import clock

    capture(monkeypatch)
    start = clock.now() + timedelta(minutes=5)
    t = tournaments.create_tournament(name="Coppie duplicate", kind="scheduled", capacity=6, players=4,
                                      preset="classico", starts_at=start, rounds=2, duplicate_deals=1,
                                      duplicate_scoring="vp")
    folk = people(10, "c")
    for i in range(0, 10, 2):
        tournaments.register(tournament_id=t.pk, user=folk[i], partner=folk[i + 1].username)
    assert tournaments.advance(start)["started"] == 1
    rng = random.Random(8)
    for number in (1, 2):
        rows = TournamentPairing.objects.filter(round__tournament=t, round__number=number).select_related("table")
        assert sum(1 for p in rows if p.entry_b_id is None) == 1  # five pairs: one bye
        for p in rows:
            if p.table_id:
                play_out(p.table, rng, seated(p.table))
        tournaments.advance()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert check_same_deals(t) == 4
    check_standings(t)


def test_the_organizers_form_makes_a_duplicate_event_and_refuses_in_italian_and_english():
    organizer = make_user("organizzatrice")
    organizer.is_staff = True
    organizer.save(update_fields=["is_staff"])
    web = Client()
    form = {"name": "Duplicato del lunedì", "description": "", "kind": "sitgo", "players": "2", "capacity": "8",
            "rounds": "", "preset": "mano_unica", "target": "none", "starts_at": "", "duplicate_deals": "3",
            "duplicate_scoring": "vp", "draw_seconds": "30", "play_seconds": "60"}
    web.force_login(make_user("curioso"))
    assert web.get("/tornei/nuovo/").status_code == 403
    assert web.post("/tornei/nuovo/", form).status_code == 403 and Tournament.objects.count() == 0
    web.force_login(organizer)
    page = web.get("/tornei/nuovo/").content.decode()
    assert "Torneo duplicato" in page and "Punti vittoria" in page
    bad = web.post("/tornei/nuovo/", form | {"target": "505"})
    assert bad.status_code == 400 and "niente punteggio da raggiungere" in bad.content.decode()
    organizer.language = "en"  # a signed-in player's own choice of language
    organizer.save(update_fields=["language"])
    english = web.post("/tornei/nuovo/", form | {"target": "505"})
    assert english.status_code == 400 and "no target score" in english.content.decode()
    organizer.language = "it"
    organizer.save(update_fields=["language"])
    assert Tournament.objects.count() == 0
    done = web.post("/tornei/nuovo/", form)
    t = Tournament.objects.get()
    assert done.status_code == 302 and done["Location"] == f"/tornei/{t.pk}/"
    assert (t.duplicate_deals, t.duplicate_scoring, t.options["hands"], t.created_by_id) == (3, "vp", 3, organizer.pk)
    shown = web.get(f"/tornei/{t.pk}/").content.decode()
    assert 'id="tournament-duplicate"' in shown and "3 smazzate a turno" in shown
