"""The replay page: a finished hand rebuilt through the engine, stepped through in the browser."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.models import Analysis
from games.selectors.fairness import game_fairness
from games.selectors.history import game_page_context
from games.selectors.replays import build_hand_replay, seat_names
from games.services.history import analysis as analysis_service

from .history import _game_or_404
from .refusals import refusal_shown


def replay_labels() -> dict[str, str]:
    """The words replay.js writes, in the page's language."""
    return {
        "step": _("Mossa {i} di {n}"),
        "deal": _("Distribuzione"),
        "to_move": _("tocca a lui"),
        "cards": _("{n} carte"),
        "card1": _("1 carta"),
        "available": _("da prendere"),
        "taken": _("preso"),
        "became_stock": _("diventato tallone"),
        "side0": _("Parte A"),
        "side1": _("Parte B"),
        "pairs0": _("Coppia A"),
        "pairs1": _("Coppia B"),
        "no_melds": _("nessun gioco"),
        "empty": _("vuoto"),
        "joker": _("jolly"),
        "spades": _("picche"),
        "hearts": _("cuori"),
        "diamonds": _("quadri"),
        "clubs": _("fiori"),
        "pinella": _("pinella"),
        "asWild": _("fa da jolly"),
        "burraco": _("burraco"),
        "pulito": _("pulito"),
        "semipulito": _("semipulito"),
        "sporco": _("sporco"),
        "nobile": _("nobile"),
        "reale": _("reale"),
        "note": _("Analisi di esperto"),
        "note_marker": _("mossa costosa"),
    }


@require_GET
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(request, game_id)
    context = game_page_context(game)
    if not game.finished:
        context["unavailable"] = _("La partita è ancora in corso: potrai rivederla quando sarà finita.")
        return render(request, "games/replay.html", context, status=409)
    numbers = [h.number for h in context["replay_hands"]]
    try:
        number = int(request.GET.get("mano", numbers[0] if numbers else 1))
    except ValueError:
        number = -1
    if number not in numbers:
        context["unavailable"] = _("Questa mano non esiste in questa partita.")
        return render(request, "games/replay.html", context, status=404)
    hand_replay = build_hand_replay(game, number)
    fairness = game_fairness(game, number)
    names = seat_names(context["seats"])
    analysis = Analysis.objects.filter(game=game).first()
    context.update({
        "hand_number": number,
        "hand_replay": hand_replay,
        "fairness": fairness[0] if fairness else None,
        "analysis": analysis,
        "analysis_status": analysis_service.status_text(analysis),
        "analysis_can_request": analysis_service.can_request(analysis),
        "replay_data": {
            "frames": hand_replay.frames,
            "players": game.table.players,
            "seats": [{"position": p, "name": n, "side": p % 2} for p, n in sorted(names.items())],
            "notes": analysis_service.hand_notes(analysis, number),
        },
        "replay_labels": replay_labels(),
    })
    return render(request, "games/replay.html", context, status=200)


@login_required
@require_POST
def request_analysis(request: HttpRequest, game_id: int) -> HttpResponse:
    """"Chiedi l'analisi": queue esperto's review of a finished game, back to its replay."""
    game = _game_or_404(request, game_id)
    target = reverse("game_replay", args=[game.pk])
    hand = request.POST.get("mano", "")
    if hand.isdigit():
        target += f"?mano={hand}"
    with refusal_shown(request) as refused:
        analysis_service.request_analysis(game)
    if refused:
        return redirect(target)
    messages.success(request, _("Analisi chiesta: esperto la prepara in pochi minuti, poi la trovi su questa pagina."))
    return redirect(target)
