"""The home page: the welcome, and for a signed-in person their games in progress."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from ..selectors.home import games_in_progress


@require_GET
def home(request):
    return render(request, "home.html", {"in_progress": games_in_progress(request.user)})
