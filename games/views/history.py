"""History pages: the list of finished games, one game's page and its move log as JSON."""

from __future__ import annotations

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from games.engine import PRESETS
from games.models import TournamentPairing
from games.selectors.history import (
    HistoryFilters,
    can_see_game,
    game_for_page,
    game_page_context,
    history_page,
    move_log,
)
from games.selectors.rules import preset_label
from games.services.errors import ServiceError


class HistoryFilterForm(forms.Form):
    giocatore = forms.CharField(label=gettext_lazy("Giocatore"), required=False, max_length=150)
    giocatori = forms.TypedChoiceField(
        label=gettext_lazy("Giocatori"), required=False, coerce=int, empty_value=None,
        choices=[("", gettext_lazy("tutti")), ("2", gettext_lazy("2 giocatori")), ("4", gettext_lazy("4 (coppie)"))],
    )
    preimpostazione = forms.ChoiceField(label=gettext_lazy("Regole"), required=False)
    dal = forms.DateField(label=gettext_lazy("Dal"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    al = forms.DateField(label=gettext_lazy("Al"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["preimpostazione"].choices = [("", _("tutte"))] + [(n, preset_label(n)) for n in PRESETS]

    def clean(self):
        data = super().clean()
        if data.get("dal") and data.get("al") and data["dal"] > data["al"]:
            self.add_error("al", _("La data finale viene prima di quella iniziale."))
        return data

    def filters(self) -> HistoryFilters:
        """The filters whose input is valid; a wrong field is reported and left out."""
        data = self.cleaned_data if hasattr(self, "cleaned_data") else {}
        return HistoryFilters(
            player=data.get("giocatore") or "",
            players=data.get("giocatori") if "giocatori" not in self.errors else None,
            preset=data.get("preimpostazione") or "",
            date_from=data.get("dal") if "dal" not in self.errors else None,
            date_to=data.get("al") if "al" not in self.errors else None,
        )


def _page_number(request: HttpRequest) -> int:
    try:
        return max(1, min(int(request.GET.get("pagina", "1")), 10_000))
    except ValueError:
        return 1


@require_GET
def history(request: HttpRequest) -> HttpResponse:
    form = HistoryFilterForm(request.GET or None)
    if form.is_bound:
        form.is_valid()
    filters = form.filters() if form.is_bound else HistoryFilters()
    page = history_page(filters, _page_number(request), viewer=request.user)
    query = request.GET.copy()
    query.pop("pagina", None)
    return render(request, "games/history.html", {
        "form": form, "page": page, "filters": filters, "query": query.urlencode(),
    })


def _game_or_404(request: HttpRequest, game_id: int):
    game = game_for_page(game_id)
    if game is None or not can_see_game(game, request.user):
        raise Http404(_("Partita non trovata."))
    if TournamentPairing.held_tables([game.table_id]):
        # A duplicate round still in play: this game's hands (cards, moves, seeds, scores, its
        # analysis) are the deals other tables are playing. Shown to nobody until the round ends.
        raise PermissionDenied(ServiceError("duplicate_held").message)
    return game


@require_GET
def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(request, game_id)
    return render(request, "games/game_detail.html", game_page_context(game))


@require_GET
def game_moves_json(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(request, game_id)
    if not game.finished:
        return JsonResponse(
            {"error": "in_progress", "message": _("La partita è in corso: il registro delle mosse sarà "
                                                  "disponibile alla fine.")},
            status=409,
        )
    response = JsonResponse(move_log(game), json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="burraco-partita-{game.pk}.json"'
    return response
