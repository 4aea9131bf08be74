"""The English catalogue covers every text of the site: none missing, none left as a guess."""

from __future__ import annotations

from pathlib import Path

import polib

CATALOGUE = Path(__file__).resolve().parent.parent / "locale" / "en" / "LC_MESSAGES" / "django.po"


def test_english_catalogue_is_complete():
    po = polib.pofile(str(CATALOGUE))
    assert len(po) > 100
    missing = [entry.msgid for entry in po.untranslated_entries()]
    guessed = [entry.msgid for entry in po.fuzzy_entries()]
    assert missing == [] and guessed == []
