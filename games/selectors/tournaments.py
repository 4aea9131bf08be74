"""Reads of tournaments: the list, one event's page (entrants, rounds and pairings, standings
with their tie-breaks), the frame its page receives live, and a player's past events. Standings
are always computed from the stored results by `games.engine.swiss` (a duplicate event's by
`games.engine.duplicate`, from the points of each deal), never stored twice (the final rank is
kept on the entry when the event ends, for the profile's list).

A duplicate round's results stay out of the standings and off the page until the round ends:
a deal's score depends on every table that played it, and a table's result shown early would
tell the tables still playing something about the cards."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q
from django.utils.translation import gettext as _

from games.live import frames

from ..engine import duplicate, swiss
from ..models import Seat, Tournament, TournamentEntry, TournamentPairing
from .rules import preset_label


def entry_name(entry: TournamentEntry) -> str:
    if entry.partner_id:
        return f"{entry.user.username} – {entry.partner.username}"
    return entry.user.username


def _entries(tournament: Tournament) -> list[TournamentEntry]:
    return list(tournament.entries.select_related("user", "partner").order_by("pk"))


def _pairings(tournament: Tournament) -> list[TournamentPairing]:
    return list(TournamentPairing.objects.filter(round__tournament=tournament)
                .select_related("round", "table").order_by("round__number", "pk"))


def _results(pairings: list[TournamentPairing]) -> list[swiss.Result]:
    return [swiss.Result(p.round.number, p.entry_a_id, p.entry_b_id, p.score_a or 0, p.score_b or 0,
                         forfeit=p.forfeit_id) for p in pairings if p.finished_at is not None]


def _computer_played(pairings: list[TournamentPairing]) -> dict[int, set[int]]:
    """Finished table -> the people at it who never made a move of their own while the computer
    played their seat (they never sat down). One query."""
    tables = [p.table_id for p in pairings if p.table_id and p.finished_at is not None]
    out: dict[int, set[int]] = {}
    if tables:
        for table_id, user_id in (Seat.objects.filter(table_id__in=tables, user__isnull=False, own_moves=0,
                                                      covered_moves__gt=0).values_list("table_id", "user_id")):
            out.setdefault(table_id, set()).add(user_id)
    return out


def _computer_rounds(entries: list[TournamentEntry], pairings: list[TournamentPairing]) -> dict[int, list[int]]:
    """Entry -> the rounds in which the computer played for one of its people."""
    absent = _computer_played(pairings)
    people = {e.pk: {e.user_id, e.partner_id} - {None} for e in entries}
    out: dict[int, list[int]] = {}
    for p in pairings:
        for entry_id in (p.entry_a_id, p.entry_b_id):
            if entry_id and people.get(entry_id, set()) & absent.get(p.table_id, set()):
                out.setdefault(entry_id, []).append(p.round.number)
    return out


def deal_results(tournament: Tournament, pairings: list[TournamentPairing]) -> list[duplicate.DealResult]:
    """A duplicate event's stored results, deal by deal, of the rounds that have ended (a bye or
    a forfeit counts on each deal of its round), as `games.engine.duplicate` reads them."""
    out = []
    for p in pairings:
        if p.finished_at is None or p.round.finished_at is None:
            continue
        if p.entry_b_id is None or p.forfeit_id is not None:
            out += [duplicate.DealResult(p.round.number, deal, p.table_id or 0, p.entry_a_id, p.entry_b_id,
                                         forfeit=p.forfeit_id) for deal in range(1, tournament.duplicate_deals + 1)]
            continue
        out += [duplicate.DealResult(p.round.number, deal, p.table_id, p.entry_a_id, p.entry_b_id, int(a), int(b))
                for deal, (a, b) in enumerate(p.deals, start=1)]
    return out


def duplicate_totals(tournament: Tournament, pairings: list[TournamentPairing] | None = None) -> dict:
    """Each entrant's duplicate total (the next round's pairing order)."""
    pairings = _pairings(tournament) if pairings is None else pairings
    return duplicate.totals(duplicate.deal_scores(deal_results(tournament, pairings), tournament.duplicate_scoring))


def duplicate_standings(tournament: Tournament, entries: list[TournamentEntry],
                        pairings: list[TournamentPairing]) -> list[duplicate.DuplicateStanding]:
    return duplicate.standings([swiss.Entrant(e.pk, e.rating) for e in entries], deal_results(tournament, pairings),
                               tournament.duplicate_scoring)


def _duplicate_rows(tournament: Tournament, entries: list[TournamentEntry],
                    pairings: list[TournamentPairing]) -> list[dict[str, Any]]:
    by_id = {e.pk: e for e in entries}
    computer = _computer_rounds(entries, pairings)
    played = {}
    for p in pairings:
        if p.finished_at is not None and p.round.finished_at is not None:
            for entry_id in (p.entry_a_id, p.entry_b_id):
                if entry_id:
                    played[entry_id] = played.get(entry_id, 0) + (p.entry_b_id is not None)
    mp = tournament.duplicate_scoring == duplicate.MATCH_POINTS
    return [{"rank": s.rank, "entry": s.entrant, "name": entry_name(by_id[s.entrant]),
             "total": duplicate.shown(s.total), "deals": s.deals,
             "average": duplicate.shown(s.total / s.deals) if (mp and s.deals) else None,
             "rating": round(s.rating), "played": played.get(s.entrant, 0),
             "withdrawn": by_id[s.entrant].withdrawn_at is not None,
             "computer_rounds": computer.get(s.entrant, [])}
            for s in duplicate_standings(tournament, entries, pairings)]


def deal_table(tournament: Tournament, entries: list[TournamentEntry] | None = None,
               pairings: list[TournamentPairing] | None = None) -> list[dict[str, Any]]:
    """A duplicate event's per-deal results of the ended rounds: per round, one row per deal and
    table (who held seats 0-2 and 1-3, the points of each side, each side's score)."""
    if not tournament.duplicate:
        return []
    entries = _entries(tournament) if entries is None else entries
    pairings = _pairings(tournament) if pairings is None else pairings
    names = {e.pk: entry_name(e) for e in entries}
    results = deal_results(tournament, pairings)
    scores = duplicate.deal_scores(results, tournament.duplicate_scoring)
    by_key = {(s.round, s.deal, s.table, s.seats): s for s in scores}
    rounds_out: dict[int, dict[str, Any]] = {}
    for r in results:
        row = rounds_out.setdefault(r.round, {"number": r.round, "rows": []})
        a, b = by_key[(r.round, r.deal, r.table, 0)], by_key.get((r.round, r.deal, r.table, 1))
        row["rows"].append({
            "deal": r.deal, "table": r.table or None, "a": names[r.a], "b": names.get(r.b) if r.b else None,
            "points_a": r.score_a if r.b and not r.forfeit else None,
            "points_b": r.score_b if r.b and not r.forfeit else None,
            "difference": a.difference, "score_a": duplicate.shown(a.score),
            "score_b": duplicate.shown(b.score) if b else None,
            "forfeit": names.get(r.forfeit) if r.forfeit else None,
        })
    for row in rounds_out.values():
        row["rows"].sort(key=lambda x: (x["deal"], x["table"] or 0))
    return [rounds_out[n] for n in sorted(rounds_out)]


def standings(tournament: Tournament, entries: list[TournamentEntry] | None = None,
              pairings: list[TournamentPairing] | None = None) -> list[dict[str, Any]]:
    entries = _entries(tournament) if entries is None else entries
    pairings = _pairings(tournament) if pairings is None else pairings
    if tournament.duplicate:
        return _duplicate_rows(tournament, entries, pairings)
    by_id = {e.pk: e for e in entries}
    table = swiss.standings([swiss.Entrant(e.pk, e.rating) for e in entries], _results(pairings))
    computer = _computer_rounds(entries, pairings)
    return [{"rank": s.rank, "entry": s.entrant, "name": entry_name(by_id[s.entrant]),
             "match_points": s.match_points, "buchholz": s.buchholz, "difference": s.difference,
             "rating": round(s.rating), "played": s.played, "byes": s.byes,
             "withdrawn": by_id[s.entrant].withdrawn_at is not None,
             "computer_rounds": computer.get(s.entrant, [])} for s in table]


def rounds(tournament: Tournament, entries: list[TournamentEntry] | None = None,
           pairings: list[TournamentPairing] | None = None) -> list[dict[str, Any]]:
    entries = _entries(tournament) if entries is None else entries
    pairings = _pairings(tournament) if pairings is None else pairings
    names = {e.pk: entry_name(e) for e in entries}
    usernames = {u: n for e in entries for u, n in ((e.user_id, e.user.username),
                                                    (e.partner_id, e.partner.username if e.partner_id else ""))}
    absent = _computer_played(pairings)
    out: dict[int, dict[str, Any]] = {}
    for p in pairings:
        row = out.setdefault(p.round.number, {"number": p.round.number, "finished": p.round.finished_at is not None,
                                              "tables": []})
        held = tournament.duplicate and p.round.finished_at is None and p.entry_b_id is not None
        if held:  # a duplicate table: nothing of its play until every table of the round is done
            row["tables"].append({
                "a": names[p.entry_a_id], "b": names.get(p.entry_b_id), "bye": False, "table": p.table_id,
                "url": None, "score_a": None, "score_b": None, "points_a": None, "points_b": None,
                "finished": p.finished_at is not None, "forfeit": None, "computer_for": [], "held": True})
            continue
        row["tables"].append({
            "a": names[p.entry_a_id], "b": names.get(p.entry_b_id) if p.entry_b_id else None,
            "bye": p.entry_b_id is None, "table": p.table_id,
            "url": f"/tavolo/{p.table_id}/" if p.table_id else None,
            "score_a": p.score_a, "score_b": p.score_b, "points_a": p.points_a, "points_b": p.points_b,
            "finished": p.finished_at is not None, "forfeit": names.get(p.forfeit_id) if p.forfeit_id else None,
            "computer_for": sorted(usernames.get(u, "") for u in absent.get(p.table_id, ())),
            "held": False,
        })
    return [out[n] for n in sorted(out)]


def summary(tournament: Tournament, entrants: int | None = None) -> dict[str, Any]:
    return {
        "id": tournament.pk, "name": tournament.name, "kind": tournament.kind,
        "kind_label": tournament.get_kind_display(), "status": tournament.status,
        "status_label": tournament.get_status_display(), "players": tournament.players,
        "pairs": tournament.pairs, "capacity": tournament.capacity,
        "entrants": tournament.entries.count() if entrants is None else entrants,
        "preset": tournament.preset, "preset_label": preset_label(tournament.preset),
        "single_hands": tournament.options.get("target") is None, "target": tournament.options.get("target"),
        "rounds": tournament.rounds, "current_round": tournament.current_round,
        "duplicate": tournament.duplicate, "deals_per_round": tournament.duplicate_deals,
        "scoring": tournament.duplicate_scoring,
        "starts_at": tournament.starts_at.isoformat() if tournament.starts_at else None,
        "url": f"/tornei/{tournament.pk}/",
    }


def tournament_frame(tournament: Tournament) -> dict[str, Any]:
    """What a tournament page receives live (group `tournament.<id>`): nothing hidden in it."""
    entries = _entries(tournament)
    pairings = _pairings(tournament)
    frame = frames.tournament(summary(tournament, len(entries)), standings(tournament, entries, pairings),
                              rounds(tournament, entries, pairings),
                              [{"id": e.pk, "name": entry_name(e)} for e in entries])
    if tournament.duplicate:
        frame["deals"] = deal_table(tournament, entries, pairings)
    return frame


def frame_of(tournament_id: int) -> dict[str, Any] | None:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    return None if tournament is None else tournament_frame(tournament)


def tournament_page(tournament: Tournament, user) -> dict[str, Any]:
    frame = tournament_frame(tournament)
    mine = None
    if user is not None and user.is_authenticated:
        mine = next((e for e in tournament.entries.filter(Q(user=user) | Q(partner=user))), None)
    my_table = None
    if mine is not None and tournament.status == Tournament.Status.RUNNING:
        current = (TournamentPairing.objects.filter(round__tournament=tournament,
                                                    round__number=tournament.current_round,
                                                    finished_at__isnull=True)
                   .filter(Q(entry_a=mine) | Q(entry_b=mine)).first())
        my_table = current.table_id if current else None
    return {**frame, "registered": mine is not None, "registered_by_me": mine is not None and mine.user_id == user.pk,
            "my_table": my_table, "description": tournament.description,
            "options": tournament.options, "open": tournament.status == Tournament.Status.REGISTERING}


def tournament_list() -> dict[str, list[dict[str, Any]]]:
    """Open, running and (the latest 20) finished events, with their entrant counts."""
    rows = list(Tournament.objects.annotate(n=Count("entries")).order_by("-created_at")[:200])
    groups: dict[str, list[dict[str, Any]]] = {"open": [], "running": [], "past": []}
    for t in rows:
        key = {"registering": "open", "running": "running"}.get(t.status, "past")
        if key == "past" and len(groups["past"]) >= 20:
            continue
        groups[key].append(summary(t, t.n) | {"starts": t.starts_at})
    groups["open"].sort(key=lambda s: s["starts_at"] or "")
    return groups


def past_tournaments(user, limit: int = 20) -> list[dict[str, Any]]:
    """The finished events `user` played (alone or in a pair), latest first, with their rank."""
    entries = (TournamentEntry.objects.filter(Q(user=user) | Q(partner=user),
                                              tournament__status=Tournament.Status.FINISHED)
               .select_related("tournament", "user", "partner").order_by("-tournament__finished_at")[:limit])
    counts = dict(TournamentEntry.objects.filter(tournament__in=[e.tournament_id for e in entries])
                  .values_list("tournament").annotate(n=Count("id")))
    return [{"id": e.tournament_id, "name": e.tournament.name, "rank": e.final_rank,
             "entrants": counts.get(e.tournament_id, 0), "finished_at": e.tournament.finished_at,
             "as": entry_name(e), "url": f"/tornei/{e.tournament_id}/"} for e in entries]


def note_label(note: str) -> str:
    return {"too_few": _("Annullato: meno di due iscritti all'inizio."),
            "no_pairing": _("Concluso prima dell'ultimo turno: non restavano abbinamenti nuovi.")}.get(note, "")


def table_tournament(table_id: int) -> dict[str, Any] | None:
    """The event a table was paired for (its page links back to it), or None."""
    pairing = TournamentPairing.objects.filter(table_id=table_id).select_related("round__tournament").first()
    if pairing is None:
        return None
    t = pairing.round.tournament
    return {"id": t.pk, "name": t.name, "round": pairing.round.number, "url": f"/tornei/{t.pk}/",
            "duplicate": t.duplicate}
