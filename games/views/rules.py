"""The rules page: the rule book in the site's words, with every figure read from the engine."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games.engine.swiss import BYE_POINTS
from games.selectors.rules import rules_context
from games.views.tournaments import scale_rows


@require_GET
def rules(request: HttpRequest) -> HttpResponse:

    return render(request, "rules/rules.html", rules_context() | {"tournament_scale": scale_rows(),
                                                                  "tournament_bye": BYE_POINTS})


@require_GET
def controls(request: HttpRequest) -> HttpResponse:
    """Every control of the table page: mouse, finger and keyboard."""
    return render(request, "rules/controls.html")
