"""The leaderboards page: a tab per rating mode, pages, a player search, a jump to a player."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.models import PlayerRating, RatingMode
from games.selectors.history import find_player
from games.selectors.leaderboards import (
    MIN_GAMES,
    PROVISIONAL_BELOW,
    leaderboard_page,
    page_of_rank,
    rank_of,
    search,
    valid_mode,
)


def _int(value: str | None, default: int = 1) -> int:
    try:
        return max(1, min(int(value or default), 1_000_000))
    except ValueError:
        return default


@require_GET
def leaderboards(request: HttpRequest) -> HttpResponse:
    mode = valid_mode(request.GET.get("modo"))
    text = request.GET.get("q", "").strip()[:150]
    page_number = _int(request.GET.get("pagina"))
    highlight = None
    notice = ""
    wanted = request.GET.get("giocatore", "").strip()[:150]
    if wanted:
        player = find_player(wanted)
        rating = PlayerRating.objects.filter(user=player, mode=mode).first() if player else None
        if player is None:
            notice = _("Nessun giocatore si chiama «%(name)s».") % {"name": wanted}
        elif rating is None or rating.games < MIN_GAMES:
            notice = _("%(name)s non è ancora in questa classifica: servono %(n)s partite valide.") % {
                "name": player.username, "n": MIN_GAMES}
        else:
            page_number = page_of_rank(rank_of(mode, rating.rating, player.pk))
            highlight = player.pk
    results = search(mode, text) if text else None
    page = leaderboard_page(mode, page_number)
    return render(request, "games/leaderboards.html", {
        "mode": mode,
        "modes": RatingMode.choices,
        "page": page,
        "q": text,
        "results": results,
        "highlight": highlight,
        "notice": notice,
        "min_games": MIN_GAMES,
        "provisional_below": PROVISIONAL_BELOW,
    })
