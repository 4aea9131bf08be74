"""The table's chat: ready-made phrases only (RULES §13: no free text at the table)."""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from games.live import frames, transport
from games.live.transport import Messages
from games.selectors.tables import phrase_text
from games.services.table.seating import TableError


def say(table_id: int, position: int | None, username: str, phrase) -> Messages:
    """The `chat` frame of a seated person's phrase, for everyone at the table (players and
    spectators); refused (`TableError`) for a phrase not on the list or a person not seated."""
    with translation.override(settings.LANGUAGE_CODE):  # one text for all; pages may show their own
        text = phrase_text(phrase) if isinstance(phrase, str) else None
    if text is None:
        raise TableError("bad_phrase", _("In chat si possono usare solo le frasi proposte."))
    if position is None:
        raise TableError("not_seated", _("Non sei seduto a questo tavolo."))
    return [(transport.all_group(table_id), frames.chat(position, username, phrase, text))]
