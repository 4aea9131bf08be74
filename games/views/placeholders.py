"""Thin views of the game pages. Each later feature replaces its placeholder here."""

from django.shortcuts import render
from django.utils.translation import gettext_lazy as _


def _coming(request, title):
    return render(request, "games/coming.html", {"title": title})


def lobby(request):
    return _coming(request, _("Gioca"))


def history(request):
    return _coming(request, _("Storico"))


def leaderboards(request):
    return _coming(request, _("Classifiche"))


def rules(request):
    return _coming(request, _("Regole"))
