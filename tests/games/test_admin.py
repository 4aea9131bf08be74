"""The admin shows tables, games, moves and ratings read-only: the services are the one writer."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.models import Game, Hand, Move, PlayerRating, RatingChange, Seat, Table
from tests.factories import finished_match, make_users, match_in_progress

pytestmark = pytest.mark.django_db
MODELS = [Table, Seat, Game, Hand, Move, PlayerRating, RatingChange]


@pytest.fixture
def live_game():
    return match_in_progress(make_users(2, "adm"), stop_after=12)


def url(model, name: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{name}", args=args)


def test_game_change_page_renders_read_only_for_a_superuser(admin_client, live_game):
    response = admin_client.get(url(Game, "change", live_game.pk))
    assert response.status_code == 200
    text = response.content.decode()
    assert 'name="_save"' not in text  # no save button
    assert 'name="version"' not in text and 'name="state"' not in text  # no inputs
    assert "stock" in text or "tallone" in text or "hands" in text  # the state is shown
    assert response.context["has_change_permission"] is False


def test_post_to_a_live_games_change_page_alters_nothing(admin_client, live_game):
    before = Game.objects.values().get(pk=live_game.pk)
    moves_before = Move.objects.filter(game=live_game).count()
    response = admin_client.post(url(Game, "change", live_game.pk), {
        "table": live_game.table_id, "hand_number": 9, "version": 0, "to_move": 1, "finished": "on",
        "state": "{}", "totals": "[5000, 0]", "winner_side": 0,
    })
    assert response.status_code == 403
    assert Game.objects.values().get(pk=live_game.pk) == before
    assert Move.objects.filter(game=live_game).count() == moves_before


def test_move_rows_cannot_be_changed_added_or_deleted(admin_client, live_game):
    move = Move.objects.filter(game=live_game).order_by("seq").first()
    before = Move.objects.values().get(pk=move.pk)
    assert admin_client.get(url(Move, "change", move.pk)).status_code == 200
    assert admin_client.post(url(Move, "change", move.pk), {"seq": 99, "action": "{}"}).status_code == 403
    assert admin_client.post(url(Move, "delete", move.pk), {"post": "yes"}).status_code == 403
    assert admin_client.get(url(Move, "add")).status_code == 403
    assert Move.objects.values().get(pk=move.pk) == before


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_game_model_lists_and_shows_but_refuses_writes(admin_client, model):
    users = make_users(2, "lst")
    finished_match(users, rated=True)
    obj = model.objects.order_by("pk").first()
    assert obj is not None
    assert admin_client.get(url(model, "changelist")).status_code == 200
    assert admin_client.get(url(model, "change", obj.pk)).status_code == 200
    assert admin_client.get(url(model, "add")).status_code == 403
    assert admin_client.get(url(model, "delete", obj.pk)).status_code == 403
    count = model.objects.count()
    admin_client.post(url(model, "changelist"), {"action": "delete_selected", "_selected_action": [obj.pk],
                                                 "post": "yes"})
    assert model.objects.count() == count


def test_admin_add_user_follows_the_username_rule(admin_client):
    User = get_user_model()
    response = admin_client.post(reverse("admin:accounts_user_add"), {
        "username": "\u0430dmin", "usable_password": "false", "password1": "", "password2": "",
    })
    assert response.status_code == 200
    assert "mescola alfabeti diversi" in response.content.decode()
    assert not User.objects.filter(username="\u0430dmin").exists()
    response = admin_client.post(reverse("admin:accounts_user_add"), {
        "username": "nuovo", "usable_password": "false", "password1": "", "password2": "",
    })
    assert response.status_code == 302
    assert User.objects.filter(username="nuovo").exists()
