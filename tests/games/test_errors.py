"""The one catalogue of refusals (games/services/errors.py): every key has its Italian message and
its English translation, and every `ServiceError` the code raises names a key of the catalogue."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import polib
import pytest
from django.utils import translation

from games.services import errors
from games.services.errors import MESSAGES, ServiceError

ROOT = Path(__file__).resolve().parent.parent.parent
CATALOGUE = ROOT / "locale" / "en" / "LC_MESSAGES" / "django.po"


def test_every_key_has_an_italian_message_and_an_english_translation():
    po = {entry.msgid: entry for entry in polib.pofile(str(CATALOGUE)) if not entry.obsolete}
    with translation.override("it"):
        italian = {key: str(text) for key, text in MESSAGES.items()}
    with translation.override("en"):
        english = {key: str(text) for key, text in MESSAGES.items()}
    assert len(MESSAGES) > 80
    for key in MESSAGES:
        assert re.fullmatch(r"[a-z_]+(:[a-z_]+)?", key), key
        assert italian[key].strip(), key
        entry = po.get(italian[key])
        assert entry is not None and entry.msgstr and "fuzzy" not in entry.flags, f"{key}: no English in django.po"
        assert english[key] == entry.msgstr != italian[key], f"{key}: the compiled catalogue does not translate it"


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_a_refusal_carries_its_wire_code_and_its_message(key):
    params = {name: "x" for name in re.findall(r"%\((\w+)\)s", str(MESSAGES[key]))}
    exc = ServiceError(key, **params)
    assert exc.code == key.partition(":")[0] and exc.key == key
    assert "%(" not in exc.message and exc.message


def test_every_service_error_raised_is_in_the_catalogue():
    raised = set()
    for path in (ROOT / "games").rglob("*.py"):
        for call in re.findall(r"ServiceError\(([^)]*)\)", path.read_text()):
            raised |= set(re.findall(r'(?<!=)"([a-z_:]+)"', call))
    # The turn planner returns its refusals as codes; play._refuse_if raises them (bad_action as
    # the engine's IllegalMove, the rest as ServiceError).
    planned = set(re.findall(r'return "([a-z_]+)"', (ROOT / "games/services/table/turn_plan.py").read_text()))
    raised |= planned - {"bad_action"}
    assert raised and raised <= set(MESSAGES), sorted(raised - set(MESSAGES))
    message_only = {"bad_json", "too_large", "unknown_type", "rate_limited", "bad_phrase", "busy", "unavailable"}
    unused = set(MESSAGES) - raised - message_only
    used_by_message = {key for path in (ROOT / "games").rglob("*.py")
                       for key in re.findall(r'message\("([a-z_:]+)"', path.read_text())}
    assert unused <= used_by_message, sorted(unused - used_by_message)


def test_the_doctests_run():
    assert doctest.testmod(errors).failed == 0
