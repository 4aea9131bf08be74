"""The views' one catch of a refusal: the services' `ServiceError` and the engine's `IllegalMove`
become the page's error message (or the form's, with `show`), and the view goes on knowing it.

    with refusal_shown(request) as refused:
        tournaments.withdraw(tournament_id=tournament_id, user=request.user)
    if refused:
        return redirect(...)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.contrib import messages

from ..engine import IllegalMove
from ..services.errors import ServiceError


@dataclass
class Refused:
    """What the block was refused with (None: it ran to the end); true when refused."""

    error: ServiceError | IllegalMove | None = None

    def __bool__(self) -> bool:
        return self.error is not None


@contextmanager
def refusal_shown(request, show: Callable[[str], None] | None = None) -> Iterator[Refused]:
    """Run the block; a refusal in it is shown (`messages.error`, or `show(message)`) and noted."""
    refused = Refused()
    try:
        yield refused
    except (ServiceError, IllegalMove) as exc:
        refused.error = exc
        if show is not None:
            show(exc.message)
        else:
            messages.error(request, exc.message)
