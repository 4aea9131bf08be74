"""Challenges over HTTP: the "Sfida" form of the profile and the leaderboard, and the lobby's
list of invitations when its socket is not there (the socket answers them live:
games/consumers/lobby.py). Thin: the service decides, the view says what happened."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.services.lobby import challenges
from games.services.table.seating import TableError


def _back(request, fallback: str = "lobby"):
    target = request.POST.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                  require_https=request.is_secure()):
        return redirect(target)
    return redirect(fallback)


@login_required
@require_POST
def challenge_send(request):
    try:
        challenge = challenges.send_challenge(challenger=request.user, username=request.POST.get("username"),
                                              preset=request.POST.get("preset"))
    except TableError as exc:
        messages.error(request, exc.message)
        return _back(request)
    messages.success(request, _("Invito mandato a %(name)s: ha dieci minuti per accettare. Se è collegato "
                                "lo vede subito, altrimenti lo trova tra i suoi inviti. Resta su questa pagina: "
                                "quando accetta, ti porta al tavolo.") % {"name": challenge.invitee.username})
    return redirect("lobby")  # its socket takes the challenger to the table when the answer comes


def _answer(request, challenge_id: int, service, done: str):
    try:
        challenge = service(user=request.user, challenge_id=challenge_id)
    except TableError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    if challenge.table_id:
        return redirect("table", table_id=challenge.table_id)
    messages.success(request, done)
    return redirect("lobby")


@login_required
@require_POST
def challenge_accept(request, challenge_id: int):
    return _answer(request, challenge_id, challenges.accept_challenge, "")


@login_required
@require_POST
def challenge_decline(request, challenge_id: int):
    return _answer(request, challenge_id, challenges.decline_challenge, _("Invito rifiutato."))


@login_required
@require_POST
def challenge_cancel(request, challenge_id: int):
    return _answer(request, challenge_id, challenges.cancel_challenge, _("Invito annullato."))
