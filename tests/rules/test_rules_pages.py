"""The rules page: rendered in Italian and English, its figures and lists read from the engine."""

from __future__ import annotations

import html

import pytest
from django.utils import translation

from games.engine import CARD_POINTS, ENGINE_MESSAGES, MESSAGES, OPTIONS, PRESETS, RULEBOOK_MESSAGES
from games.selectors.rules import meld_examples, scoring_example

pytestmark = pytest.mark.django_db


def page(client, language: str) -> str:
    client.cookies["django_language"] = language
    response = client.get("/regole/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    assert response["Content-Language"] == language
    return response.content.decode()


def test_every_engine_text_is_marked_for_translation_and_translated():
    engine_texts = set(MESSAGES.values()) | {o["label"] for o in OPTIONS}
    with translation.override("en"):
        untranslated = [t for t in engine_texts if translation.gettext(t) == t]
    assert untranslated == []


def test_italian_page_lists_every_refusal_with_its_exact_message(client):
    body = page(client, "it")
    for code, message in MESSAGES.items():
        assert f'data-code="{code}"' in body
        assert html.escape(message) in body
    assert len(RULEBOOK_MESSAGES) == 18 and set(ENGINE_MESSAGES) <= set(MESSAGES)
    assert "Regole del Burraco" in body and "Glossario" in body


def test_english_page_translates_and_keeps_the_italian_messages_seen_in_play(client):
    body = page(client, "en")
    assert "Burraco rules" in body
    assert "Glossary" in body
    for message in RULEBOOK_MESSAGES.values():
        assert html.escape(message) in body  # the Italian, as shown at the table
        with translation.override("en"):
            assert html.escape(translation.gettext(message)) in body
    assert "Regole del Burraco" not in body


def test_points_table_and_options_come_from_the_engine(client):
    body = page(client, "it")
    for points in set(CARD_POINTS.values()):
        assert f'data-points="{points}"' in body
    for option in OPTIONS:
        assert f'data-option="{option["name"]}"' in body
        assert html.escape(option["label"]) in body
    for name in PRESETS:
        assert name.replace("_", " ").capitalize()[:5] in body


def test_worked_examples_carry_the_engine_verdicts(client):
    body = page(client, "it")
    examples = {" ".join(e["cards"]): e for e in meld_examples()}
    assert examples["7H 8H 9H"]["ok"] and examples["7H 8H 9H"]["wild"] is None
    assert not examples["2S 2H 2D"]["ok"]
    assert html.escape(MESSAGES["set_of_twos"]) in body
    assert 'data-example="AH 2H JK"' in body and html.escape(MESSAGES["joker_and_pinella"]) in body
    # The scoring example is the engine's own score() of a closed hand.
    score = scoring_example()["score"]
    assert score[0]["total"] == 365 and score[1]["total"] == -125
    assert ">365<" in body and ">-125<" in body


def test_controls_page_lists_every_control(client):
    body = client.get("/comandi/").content.decode()
    assert "Comandi del tavolo" in body
    for words in ("Pescare dal tallone", "Raccogliere gli scarti", "Calare le carte scelte", "Legare a un tuo gioco",
                  "Scartare e finire il turno", "<kbd>P</kbd>", "<kbd>Esc</kbd>", "Rivincita"):
        assert words in body
