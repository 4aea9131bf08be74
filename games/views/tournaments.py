"""Tournament pages: the list, one event's page, and its registration and withdrawal forms. Thin:
the services decide (games/services/tournaments.py), the selectors read, the view says what
happened. The page keeps its standings and pairings live over the lobby socket."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.views.refusals import refusal_shown

from ..engine.swiss import BYE_POINTS, SCALE, TABLE_POINTS
from ..forms import TournamentForm
from ..models import Tournament
from ..selectors import tournaments as selectors
from ..services import tournaments


@require_GET
def tournament_list(request):
    return render(request, "games/tournament_list.html", {"groups": selectors.tournament_list()})


def scale_rows() -> list[dict[str, int]]:
    """The scoring scale as rows for the pages: from-to point difference, winner, loser."""
    rows, low = [], 0
    for upper, points in SCALE:
        rows.append({"low": low, "high": upper, "winner": points, "loser": TABLE_POINTS - points})
        low = upper + 1
    rows.append({"low": low, "high": None, "winner": TABLE_POINTS, "loser": 0})
    return rows


@require_GET
def tournament_detail(request, tournament_id: int):
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise Http404
    page = selectors.tournament_page(tournament, request.user)
    return render(request, "games/tournament_detail.html", {
        "t": page, "tournament": tournament, "note": selectors.note_label(tournament.note),
        "bye_points": BYE_POINTS, "labels": _labels(),
    })


def _labels() -> dict:
    """The page script's words, in the page's language."""
    return {
        "status": dict(Tournament.Status.choices), "against": _("contro"), "mp": _("PT"),
        "bye": _("riposa (%(n)s punti torneo)") % {"n": BYE_POINTS}, "watch": _("guarda il tavolo"),
        "round": _("Turno {n}"), "inPlay": _("in corso"), "withdrawn": _("ritirato"),
        "forfeit": _("{n} ha abbandonato"), "entrants": _("{n} iscritti su {c}"),
        "standings": _("Classifica"), "finalTable": _("Classifica finale"),
        "called": _("Il tuo tavolo è pronto: il turno comincia ora."),
        "computerRounds": _("al suo posto il computer, turno {n}"),
        "computerFor": _("per {names} ha giocato il computer"),
        # A duplicate event's words (games/engine/duplicate.py)
        "heldDone": _("finito: il risultato esce a fine turno"), "heldPlaying": _("in corso, senza spettatori"),
        "duplicateBye": _("riposa (un risultato medio a ogni smazzata)"), "rests": _("riposa"),
        "noDeals": _("Nessun turno ancora concluso."), "dealsOf": _("Smazzate del turno {n}"),
        "dealN": _("Smazzata {n}"), "table": [_("Tavolo"), _("Tav.")], "points": _("Punti"),
        "lines": [_("Linea 1-3"), _("Linea 2-4")], "seats": [_("Posto 1"), _("Posto 2")],
        "score": {"mp": [_("punti partita in percentuale"), "%"], "vp": [_("punti vittoria"), _("PV")]},
    }


@login_required
@require_POST
def tournament_register(request, tournament_id: int):
    with refusal_shown(request) as refused:
        tournaments.register(tournament_id=tournament_id, user=request.user,
                             partner=request.POST.get("partner") or None)
    if not refused:
        messages.success(request, _("Iscrizione fatta. Quando il torneo comincia, il sito ti chiama al tuo tavolo."))
    return redirect("tournament_detail", tournament_id=tournament_id)


@login_required
@require_POST
def tournament_withdraw(request, tournament_id: int):
    with refusal_shown(request) as refused:
        tournaments.withdraw(tournament_id=tournament_id, user=request.user)
    if not refused:
        messages.success(request, _("Ti sei ritirato dal torneo: il posto è di nuovo libero."))
    return redirect("tournament_detail", tournament_id=tournament_id)


@login_required
@require_http_methods(["GET", "POST"])
def tournament_new(request):
    """The organizers' form (staff): a tournament open for registration, duplicate or not."""
    if not request.user.is_staff:
        raise PermissionDenied(_("Solo gli organizzatori possono creare un torneo."))
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with refusal_shown(request, show=lambda text: form.add_error(None, text)) as refused:
            t = tournaments.create_tournament(created_by=request.user, **form.service_kwargs())
        if not refused:
            messages.success(request, _("Torneo creato: le iscrizioni sono aperte."))
            return redirect("tournament_detail", tournament_id=t.pk)
    return render(request, "games/tournament_new.html", {"form": form}, status=400 if form.errors else 200)
