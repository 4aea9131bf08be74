"""The rules page: rendered in Italian and English, its figures and lists read from the engine."""

from __future__ import annotations

import html
import re

import pytest
from django.utils import translation

from games.engine import CARD_POINTS, ENGINE_MESSAGES, MESSAGES, OPTIONS, PRESETS, RULEBOOK_MESSAGES
from games.selectors.rules import meld_examples, scoring_example, slide_examples

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


def _slide_item(body: str, before: str, card: str) -> tuple[list[str], list[str], str]:
    """The labels of the cards before and after the arrow in one sliding example, and its text."""
    start = body.index(f'data-slide="{before} + {card}"')
    item = body[start:body.index("</li>", start)]
    head, after = item.split("→", 1)
    labels = re.compile(r'class="pcard([^"]*)" role="img" aria-label="([^"]*)"')
    return ([m.group(2) + ("*" if "as-wild" in m.group(1) else "") for m in labels.finditer(head)],
            [m.group(2) + ("*" if "as-wild" in m.group(1) else "") for m in labels.finditer(after)],
            item)


def test_sliding_examples_are_the_engine_lay_offs(client):
    """RULES §4 worked examples: the 2 sliding into its own place turns natural (pulito), and a
    high ace stays high when the wild slides to the bottom under it."""
    slides = {(" ".join(e["before"]), e["card"]): e for e in slide_examples()}
    own = slides[("3S 4S 5S 6S 7S 8S 9S 2S JS QS KS AS", "TS")]
    assert own["after"] == "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS".split()
    assert (own["after_wild"], own["before_bonus"], own["after_bonus"]) == (None, 100, 200)
    under = slides[("JK 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "2H")]
    assert under["after"] == "JK 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH".split()
    assert under["after_wild"] == 0 and under["after_bonus"] == 100
    clean = slides[("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "2H")]
    assert clean["after"][0] == "2H" and clean["after"][-1] == "AH" and clean["after_wild"] is None

    body = page(client, "it")
    before, after, item = _slide_item(body, "3S 4S 5S 6S 7S 8S 9S 2S JS QS KS AS", "TS")
    assert before[7] == "2 picche (pinella)*" and before[-1] == "10 picche"  # the 10 laid off
    assert after[0] == "2 picche (pinella)" and "*" not in "".join(after)  # natural: no wild mark
    assert "<strong>sporco</strong> (premio 100)" in item and "<strong>pulito</strong> (premio 200)" in item
    _, after, _ = _slide_item(body, "JK 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "2H")
    assert after[0] == "jolly*" and after[1] == "2 cuori (pinella)" and after[-1] == "A cuori"


def test_the_rules_page_says_a_discard_may_leave_one_card(client):
    """RULES §7: the one-card limits after the pozzetto bind melds and lay-offs, not the discard."""
    italian = page(client, "it")
    assert "non per lo scarto" in italian and "anche una matta e anche senza burraco" in italian
    english = page(client, "en")
    assert "not to the discard" in english and "even a wild and even without a burraco" in english
    assert "lands it in its own place" in english  # the sliding 2, in English too


def test_controls_page_lists_every_control(client):
    body = client.get("/comandi/").content.decode()
    assert "Comandi del tavolo" in body
    for words in ("Pescare dal tallone", "Raccogliere gli scarti", "Calare le carte scelte", "Legare a un tuo gioco",
                  "Scartare e finire il turno", "<kbd>P</kbd>", "<kbd>Esc</kbd>", "Rivincita"):
        assert words in body


def test_the_page_says_which_games_count_for_the_leaderboards(client):
    """Issue 14, item 7: private tables and challenges are unrated; the queue and public tables count."""
    italian, english = page(client, "it"), page(client, "en")
    assert "Lo stesso vale per le sfide" in italian and "Gioca con persone" in italian
    assert "The same goes for challenges" in english and "Lo stesso vale per le sfide" not in english


def test_the_page_explains_reliability_with_the_matchers_own_figures(client):
    """Issue 14, item 6: what reliability counts and how the queue uses it, figures from the code."""
    from games.selectors.reliability import MIN_MATCHES, RELIABLE_SHARE
    from games.services.lobby.matchmaking import RELIABILITY_MIX_SECONDS

    italian, english = page(client, "it"), page(client, "en")
    assert (f"chi su almeno {MIN_MATCHES} partite ne ha portate a termine meno del {RELIABLE_SHARE * 100:.0f} % "
            f"aspetta per i primi {RELIABILITY_MIX_SECONDS:.0f} secondi") in html.unescape(re.sub(r"\s+", " ", italian))
    assert (f"over at least {MIN_MATCHES} matches, finished fewer than {RELIABLE_SHARE * 100:.0f} % of them waits "
            f"for the first {RELIABILITY_MIX_SECONDS:.0f} seconds") in html.unescape(re.sub(r"\s+", " ", english))


def test_the_burraco_reale_section_reads_the_engine(client):
    body = page(client, "it")
    assert 'id="burraco-reale"' in body and "104 carte" in body and "59 carte in due e 37 in quattro" in body
    assert 'data-example="AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"' in body
    assert "<strong>reale</strong>: premio 1000" in body and "<strong>nobile</strong>: premio 500" in body
    assert html.escape(MESSAGES["reale_no_sets"]) in body and html.escape(MESSAGES["reale_no_joker"]) in body
    assert html.escape(MESSAGES["clean_burraco_required"]) in body
    english = page(client, "en")
    assert "jokers stay in the box" in english and "104 cards" in english
