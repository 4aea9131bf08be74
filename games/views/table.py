"""A table's page and its seat buttons; live play itself goes over the WebSocket."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.selectors.replays import log_labels, table_log
from games.services import notifications
from games.services.errors import ServiceError
from games.services.lobby.rematch import decline_rematch, offer_rematch, rematch_state
from games.services.play.play import abandon_match
from games.services.table.seating import fill_with_computer, leave, sit, start_table
from games.views.refusals import refusal_shown

from ..forms import FillForm, SitForm
from ..live.sockets import INVITES_SESSION_KEY, invited_table_ids
from ..models import BotLevel, Game, Table, TournamentPairing
from ..selectors.rules import table_rules
from ..selectors.tables import (
    can_start,
    can_watch,
    chat_phrases,
    computer_played_for,
    get_table,
    seats_in_order,
    user_position,
)
from ..selectors.tournaments import table_tournament


def _visible_table(request, table_id: int) -> Table:
    table = get_table(table_id)
    if table is None or not can_watch(table, request.user, invited_table_ids(request.session)):
        # A private table is not even confirmed to exist without its invite link.
        raise Http404(_("Tavolo non trovato."))
    if user_position(table, request.user) is None and TournamentPairing.held_tables([table.pk]):
        # A duplicate round's table is closed to spectators until every table of the round is done.
        raise PermissionDenied(ServiceError("duplicate_held").message)
    return table


@login_required
@require_GET
def table(request, table_id: int):
    table = _visible_table(request, table_id)
    found = request.GET.get("trovata")
    if found and user_position(table, request.user) is not None:
        # The lobby brought this player here the moment the table was made: say how.
        messages.success(request, {
            "sfida": _("Sfida accettata: la partita è cominciata, buon divertimento!"),
            "computer": _("Nessuno è arrivato in tempo: giochi contro il computer, fuori classifica."),
        }.get(found, _("Avversari trovati: la partita è cominciata, buon divertimento!")))
    is_creator = table.creator_id == request.user.pk
    seats = seats_in_order(table)
    tournament = table_tournament(table.pk)
    my_position = user_position(table, request.user)
    context = {
        "table": table,
        "seats": seats,
        "my_position": my_position,
        # Nobody else at the table but the computer: the tour may stop the clock (practice.py).
        "practice": my_position is not None and all(s.is_computer for s in seats if s.position != my_position),
        "ws_path": f"/ws/table/{table.pk}/",
        "bot_levels": BotLevel.choices,
        "chat_phrases": chat_phrases(),
        "invite_url": (
            request.build_absolute_uri(reverse("table_invite", args=[table.invite_token]))
            if table.private and is_creator else None
        ),
        "can_start": can_start(table, request.user),
        "is_creator": is_creator,
        "table_rules": table_rules(table.options),
        "log_labels": log_labels(),
        # A tournament's table: its end links back to the event, and there is no rematch.
        "tournament": tournament,
        "rematch": None if tournament else rematch_state(table),
        # People who never sat down: the computer played their whole match.
        "computer_for": computer_played_for(seats) if table.status == Table.Status.FINISHED else [],
    }
    notifications.table_opened(user=request.user, table_id=table.pk)  # its bell lines are seen now
    return render(request, "games/table.html", context)


@login_required
@require_GET
def table_moves(request, table_id: int):
    """The hand in play, move by move, in public words (the table page's log after a reload)."""
    table = _visible_table(request, table_id)
    game = Game.objects.filter(table=table).first()
    if game is None:
        return JsonResponse({"hand_number": None, "version": None, "lines": []})
    return JsonResponse(table_log(game))


@login_required
@require_GET
def table_invite(request, token: str):
    """The invite link of a private table: remember it in the session, then show the table."""
    table = get_object_or_404(Table, invite_token=token)
    invited = invited_table_ids(request.session)
    invited.add(table.pk)
    request.session[INVITES_SESSION_KEY] = sorted(invited)
    return redirect("table", table_id=table.pk)


def _post_action(request, table_id: int, run, form=None, invalid: str = "", done: str = "",
                 then: str | None = None) -> object:
    """Run a table's service for a POST and come back to the table (or to the page `then` names,
    once it worked), saying `done` when it worked; a refusal (an invalid form or the service's
    ServiceError) becomes an Italian message, changes nothing and comes back to the table."""
    _visible_table(request, table_id)
    if form is not None and not form.is_valid():
        messages.error(request, invalid)
        return redirect("table", table_id=table_id)
    with refusal_shown(request) as refused:
        run()
    if refused:
        return redirect("table", table_id=table_id)
    if done:
        messages.success(request, done)
    return redirect(then) if then else redirect("table", table_id=table_id)


@login_required
@require_POST
def table_sit(request, table_id: int):
    form = SitForm(request.POST)
    return _post_action(
        request, table_id,
        lambda: sit(table_id=table_id, user=request.user, position=form.cleaned_data["position"]),
        form, _("Questo posto non esiste a questo tavolo."),
    )


@login_required
@require_POST
def table_leave(request, table_id: int):
    return _post_action(request, table_id, lambda: leave(table_id=table_id, user=request.user),
                        done=_("Hai lasciato il tavolo."), then="lobby")


@login_required
@require_POST
def table_fill(request, table_id: int):
    form = FillForm(request.POST)
    return _post_action(
        request, table_id,
        lambda: fill_with_computer(
            table_id=table_id, user=request.user,
            position=form.cleaned_data["position"], level=form.cleaned_data["level"],
        ),
        form, _("Scegli un posto libero e il livello del computer."),
    )


@login_required
@require_POST
def table_start(request, table_id: int):
    return _post_action(request, table_id, lambda: start_table(table_id=table_id, user=request.user))


@login_required
@require_POST
def table_abandon(request, table_id: int):
    """"Abbandona la partita" (confirmed in a dialog): the match ends, lost by this player's side."""
    return _post_action(request, table_id, lambda: abandon_match(table_id=table_id, user=request.user),
                        done=_("Hai abbandonato la partita."))


@login_required
@require_POST
def table_rematch(request, table_id: int):
    """"Rivincita" at a finished table: this person says yes; the last yes starts the new table."""
    _visible_table(request, table_id)
    with refusal_shown(request) as refused:
        rematch = offer_rematch(table_id=table_id, user=request.user)
    if refused:
        return redirect("table", table_id=table_id)
    if rematch.new_table_id:
        return redirect("table", table_id=rematch.new_table_id)
    messages.success(request, _("Rivincita chiesta: si comincia quando anche gli altri accettano."))
    return redirect("table", table_id=table_id)


@login_required
@require_POST
def table_rematch_decline(request, table_id: int):
    """"No, grazie" to the rematch someone offered: the offer ends for everybody at the table."""
    return _post_action(request, table_id, lambda: decline_rematch(table_id=table_id, user=request.user),
                        done=_("Hai detto di no alla rivincita."))
