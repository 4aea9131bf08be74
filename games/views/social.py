"""Friends, blocking and the bell over HTTP: the profile's Segui/Blocca buttons, the "Amici"
page, and marking the bell read when its socket is not there. Thin: the services decide, the
view says what happened."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.selectors import SEARCH_MIN_LENGTH, search_players
from games.services.lobby import notifications, social
from games.services.table.seating import TableError

from ..selectors import social as selectors
from .challenges import _back


def _act(request, service, done: str):
    username = request.POST.get("username")
    try:
        service(user=request.user, username=username)
    except TableError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done % {"name": username})
    return _back(request, fallback="friends")


@login_required
@require_POST
def follow(request):
    return _act(request, social.follow, _("Ora segui %(name)s: lo trovi tra i tuoi amici."))


@login_required
@require_POST
def unfollow(request):
    return _act(request, social.unfollow, _("Non segui più %(name)s."))


@login_required
@require_POST
def block(request):
    return _act(request, social.block, _("Hai bloccato %(name)s: non potrà sfidarti né seguirti, e la coda non "
                                         "vi metterà allo stesso tavolo."))


@login_required
@require_POST
def unblock(request):
    return _act(request, social.unblock, _("Hai sbloccato %(name)s."))


def _page_number(value) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return 1


@login_required
def friends(request):
    text = request.GET.get("q", "")
    search = (search_players(viewer=request.user, text=text, page=_page_number(request.GET.get("pagina")))
              if text.strip() else None)
    return render(request, "games/friends.html", {
        "search": search,
        "search_min": SEARCH_MIN_LENGTH,
        "following": selectors.followed_names(request.user) if search and search.names else set(),
        "friends": selectors.friends(request.user),
        "blocked": selectors.blocked_players(request.user),
        "texts": {
            "online": _("collegato"), "offline": _("non collegato"), "private": _("a un tavolo privato"),
            "playing": _("gioca al tavolo {n}"), "waiting_one": _("aspetta al tavolo {n} ({free} posto libero)"),
            "waiting": _("aspetta al tavolo {n} ({free} posti liberi)"), "watch": _("Guarda"),
            "join": _("Siediti"), "back": _("Torna al tavolo"), "empty": _("Non segui ancora nessuno."),
        },
    })


@login_required
@require_GET
def player_search(request):
    """The names a player search finds, for the suggestions under a name field (the lobby's
    "Sfida un giocatore", the queue's partner): static/js/player_search.js."""
    search = search_players(viewer=request.user, text=request.GET.get("q", ""))
    return JsonResponse({"names": search.names, "more": search.has_next})


@login_required
@require_POST
def bell_read(request):
    return JsonResponse({"read": notifications.mark_read(user=request.user)})
