"""Refuse requests that carry a NUL character before any view or query sees them.

PostgreSQL text cannot hold NUL (0x00): a NUL that reaches a query (a search box, a player name
in the address, a form field, a session cookie) raises DataError, which would be a 500. No page
of the site has a use for it, so one check at the door answers 400 with a plain Italian page and
nothing runs. It looks at the decoded path, query parameters (names and values), cookies, header
values and, for form posts, the fields; a JSON or other body is left to its own parser.
"""

from __future__ import annotations

from django.http import HttpResponseBadRequest
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

NUL = "\x00"


def _has_nul(pairs) -> bool:
    return any(NUL in key or any(NUL in value for value in values) for key, values in pairs)


def carries_nul(request) -> bool:
    """Whether any part of the request a view might pass to the database holds a NUL."""
    if NUL in request.path_info or NUL in request.path:
        return True
    if _has_nul(request.GET.lists()):
        return True
    if any(NUL in key or NUL in value for key, value in request.COOKIES.items()):
        return True
    if any(isinstance(value, str) and NUL in value for key, value in request.META.items() if key.startswith("HTTP_")):
        return True
    if request.method == "POST" and request.content_type in ("application/x-www-form-urlencoded",
                                                              "multipart/form-data"):
        return _has_nul(request.POST.lists())
    return False


class RejectNulMiddleware:
    """Place after LocaleMiddleware (the message is in the visitor's language) and before
    anything that reads the session or the user from the database."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if carries_nul(request):
            return bad_input_response()
        return self.get_response(request)


def bad_input_response() -> HttpResponseBadRequest:
    # No request context: the page must not touch the session or the user (the NUL may be in the
    # session cookie itself).
    message = _("L'indirizzo o il modulo contiene un carattere non ammesso (il carattere nullo). "
                "Nulla è stato fatto: controlla l'indirizzo o il testo inserito e riprova.")
    return HttpResponseBadRequest(render_to_string("400.html", {"message": message}))
