"""Verifica del mazzo: a game's fair deals checked hand by hand, and a form where anyone pastes a
seed, client seeds and a hash to rebuild a deal (docs/fairness.md). The checks are in
games/selectors/fairness.py."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from games.selectors.fairness import check_pasted, game_fairness

from .history import _game_or_404


class VerifyForm(forms.Form):
    seme = forms.CharField(label=gettext_lazy("Seme (64 cifre esadecimali)"), max_length=80)
    client = forms.CharField(  # not stripped: a first empty line is seat 1 without a seed
        label=gettext_lazy("Semi dei giocatori"), required=False, max_length=300, strip=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=gettext_lazy("Uno per riga, nell'ordine dei posti; una riga vuota per chi non ne ha dato."))
    impronta = forms.CharField(label=gettext_lazy("Impronta SHA-256 annunciata"), required=False, max_length=80,
                               help_text=gettext_lazy("Lasciala vuota per vedere solo l'impronta del seme."))
    giocatori = forms.TypedChoiceField(label=gettext_lazy("Giocatori"), coerce=int, initial=2,
                                       choices=[(2, "2"), (4, "4")])
    mazzo = forms.ChoiceField(label=gettext_lazy("Mazzo"), required=False, initial="classico",
                              choices=[("classico", gettext_lazy("108 carte, con i jolly")),
                                       ("reale", gettext_lazy("104 carte, senza jolly (Burraco Reale)"))])


def _form_context(request: HttpRequest) -> dict:
    form = VerifyForm(request.GET if "seme" in request.GET else None)
    pasted = None
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        pasted = check_pasted(data["seme"], data["client"], data["impronta"], data["giocatori"],
                              data["mazzo"] or "classico")
    return {"form": form, "pasted": pasted}


@require_GET
def verify(request: HttpRequest) -> HttpResponse:
    """The form alone: a seed, its client seeds and a hash → the deal they make."""
    return render(request, "games/verify.html", _form_context(request))


@require_GET
def game_verify(request: HttpRequest, game_id: int) -> HttpResponse:
    """Every hand of one game: hash, and once the hand is over seed, client seeds and the check."""
    game = _game_or_404(request, game_id)
    context = _form_context(request)
    context.update({"game": game, "hands": game_fairness(game)})
    return render(request, "games/verify.html", context)
