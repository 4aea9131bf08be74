"""The lobby: open tables, a new table, one click to play against the computer, and "Gioca con
persone" (its queue works over the lobby socket: games/consumers/lobby.py, LobbyConsumer)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.selectors import quick_play_choice
from accounts.services import user_remember_quick_play
from games.live import clock
from games.services.table.seating import TableError, create_table, play_against_computer

from ..forms import PlayComputerForm, TableForm, preset_defaults
from ..models import BotLevel
from ..selectors import challenges as challenge_selectors
from ..selectors.lobby import open_tables, user_tables
from ..selectors.matchmaking import queue_choices


def _render_lobby(request, form: TableForm | None = None, status: int = 200):
    now = clock.now()
    context = {
        "invitations": challenge_selectors.received(request.user, now),
        "invitations_sent": challenge_selectors.sent(request.user, now),
        "tables": open_tables(),
        "my_tables": user_tables(request.user),
        "form": form or TableForm(),
        "bot_levels": BotLevel.choices,
        "quick_presets": challenge_selectors.challenge_presets(),
        "quick": quick_play_choice(request.user),
        "presets": preset_defaults(),
        "lobby_ws_path": "/ws/lobby/",
        "queue": queue_choices(),
        "computer_after_seconds": int(settings.QUEUE_COMPUTER_AFTER_SECONDS),
    }
    return render(request, "games/lobby.html", context, status=status)


@require_GET
def lobby(request):
    return _render_lobby(request)


@login_required
@require_POST
def table_create(request):
    form = TableForm(request.POST)
    if not form.is_valid():
        return _render_lobby(request, form, status=400)
    try:
        table = create_table(
            creator=request.user,
            ruleset=form.ruleset(),
            disconnect_grace_seconds=form.cleaned_data["disconnect_grace_seconds"],
            rated=form.cleaned_data["rated"],
            private=form.cleaned_data["private"],
        )
    except TableError as exc:
        form.add_error(None, exc.message)
        return _render_lobby(request, form, status=400)
    return redirect("table", table_id=table.pk)


@login_required
@require_POST
def play_computer(request):
    form = PlayComputerForm(request.POST)
    if not form.is_valid():
        messages.error(request, next(iter(form.errors.values()))[0])
        return redirect("lobby")
    level = form.cleaned_data["level"]
    preset = form.cleaned_data["preset"] or quick_play_choice(request.user)["preset"]
    try:
        table = play_against_computer(user=request.user, level=level, preset=preset)
    except TableError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    user_remember_quick_play(user=request.user, preset=preset, level=level)
    return redirect("table", table_id=table.pk)
