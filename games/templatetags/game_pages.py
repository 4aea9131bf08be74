"""Template helpers of the site pages (rules, history, replays): cards drawn in HTML.

The markup is the live table's (static/js/table.js `cardFace`, styled by static/css/table.css
`.pcard`), so a card looks the same at the table, in a replay and on the rules pages.
"""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from accounts.selectors import is_deleted_name
from games.selectors.challenges import challenge_presets
from games.selectors.history import player_recent_games
from games.selectors.ratings import profile_ratings, rating_chart
from games.selectors.reliability import reliability
from games.selectors.rules import preset_label
from games.selectors.social import relation
from games.selectors.tournaments import past_tournaments

register = template.Library()

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def suit_names() -> dict[str, str]:
    return {"S": _("picche"), "H": _("cuori"), "D": _("quadri"), "C": _("fiori")}


def card_label(text: str) -> str:
    """The spoken name of a card, for screen readers and tooltips."""
    if text == "JK":
        return _("jolly")
    rank = "10" if text[0] == "T" else text[0]
    label = f"{rank} {suit_names().get(text[1], text[1])}"
    return f"{label} ({_('pinella')})" if text[0] == "2" else label


@register.simple_tag
def card_face(text: str, wild: bool = False) -> SafeString:
    """One card face; `wild` marks a card standing for another in a meld."""
    extra = " as-wild" if wild else ""
    if text == "JK":
        return format_html(
            '<span class="pcard joker{}" role="img" aria-label="{}" title="{}"><span class="idx"><span class="r">JK'
            '</span><span class="s">★</span></span><span class="pip">★</span></span>',
            extra, card_label(text), card_label(text),
        )
    suit = text[1]
    classes = ("red " if suit in "HD" else "") + ("pinella" if text[0] == "2" else "")
    rank = "10" if text[0] == "T" else text[0]
    return format_html(
        '<span class="pcard {}{}" role="img" aria-label="{}" title="{}"><span class="idx"><span class="r">{}</span>'
        '<span class="s">{}</span></span><span class="pip">{}</span></span>',
        classes.strip(), extra, card_label(text), card_label(text), rank, SUIT_SYMBOL[suit], SUIT_SYMBOL[suit],
    )


@register.simple_tag
def card_row(cards: str | Iterable[str], wild: int | None = None) -> SafeString:
    """A row of cards (a list of notations or a space separated string); `wild` is an index."""
    texts = cards.split() if isinstance(cards, str) else list(cards)
    return format_html(
        '<span class="cards-row">{}</span>',
        format_html_join("", "{}", ((card_face(t, i == wild),) for i, t in enumerate(texts))),
    )


@register.filter
def preset_name(name: str) -> str:

    return preset_label(name)


@register.filter
def index(sequence, position: int):
    """sequence[position], or '' when out of range."""
    try:
        return sequence[int(position)]
    except (IndexError, TypeError, ValueError):
        return ""


@register.inclusion_tag("games/history_profile.html", takes_context=True)
def player_profile_extra(context, player) -> dict:
    """The profile's ratings (both modes, rank, record, chart) and the player's latest games."""

    request = context.get("request")
    viewer = getattr(request, "user", None)
    summaries = profile_ratings(player)
    return {
        "player": player,
        "summaries": summaries,
        "chart": rating_chart(summaries),
        "reliability": reliability(player),
        "recent": player_recent_games(player, viewer=viewer),
        "tournaments": past_tournaments(player),
        "request": request,
    }


@register.filter
def percent(value: float) -> str:
    return f"{value:.0f}%"


@register.filter
def rating_display(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}"


@register.inclusion_tag("games/_challenge_form.html", takes_context=True)
def challenge_button(context, username: str, compact: bool = False) -> dict:
    """"Sfida": a small form (a preset for two, from the engine) that invites `username`; shown
    to a signed-in person other than that player. No query: the presets are the engine's."""

    request = context.get("request")
    viewer = getattr(request, "user", None)
    show = bool(viewer is not None and viewer.is_authenticated and viewer.get_username() != username
                and not is_deleted_name(username))
    return {
        "show": show,
        "username": username,
        "presets": challenge_presets() if show else [],
        "next": request.get_full_path() if request is not None else "",
        "compact": compact,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("games/_social_buttons.html", takes_context=True)
def social_buttons(context, player) -> dict:
    """The profile's Segui / Non seguire più and Blocca / Sblocca, for a signed-in person other
    than the player (two small queries)."""

    request = context.get("request")
    viewer = getattr(request, "user", None)
    return {
        "player": player,
        "relation": relation(viewer, player),
        "next": request.get_full_path() if request is not None else "",
        "csrf_token": context.get("csrf_token"),
    }
