"""Lobby forms: the table a player creates, and the computer level to play against."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.services.table.seating import private_unrated_message

from .engine import PRESET_PLAYERS, Ruleset
from .models import BotLevel

PRESET_CHOICES = [
    ("classico", _("Classico")),
    ("mano_unica", _("Mano unica")),
    ("testa_a_testa", _("Testa a testa")),
    ("reale", _("Burraco Reale")),
]
TARGET_CHOICES = [
    ("none", _("Nessuno: una sola mano")),
    ("505", "505"),
    ("1005", "1005"),
    ("2005", "2005"),
]
STOCK_CHOICES = [
    ("end_at_two", _("La mano finisce quando restano due carte")),
    ("pozzetto_becomes_stock", _("Il pozzetto non preso diventa tallone")),
]
# Presets only for two players (RULES §11); create_table refuses them with four as well.
TWO_PLAYER_PRESETS = {name for name, counts in PRESET_PLAYERS.items() if 4 not in counts}
TIMER_MIN, TIMER_MAX = 10, 300


class TableForm(forms.Form):
    """A new table. The preset names the variant; every option is explicit in the form, so what
    the player sees is what the table plays (the page pre-fills them from the preset)."""

    players = forms.TypedChoiceField(
        label=_("Giocatori"), choices=[(2, _("2: uno contro uno")), (4, _("4: due coppie"))], coerce=int, initial=2
    )
    preset = forms.ChoiceField(label=_("Variante"), choices=PRESET_CHOICES, initial="classico")
    target = forms.ChoiceField(label=_("Punteggio da raggiungere"), choices=TARGET_CHOICES, initial="2005")
    semipulito = forms.BooleanField(label=_("Burraco semipulito da 150 punti"), required=False)
    close_by_melding = forms.BooleanField(label=_("Si può chiudere calando l'ultima carta"), required=False)
    stock_exhausted = forms.ChoiceField(
        label=_("Quando il tallone finisce"), choices=STOCK_CHOICES, initial="end_at_two"
    )
    burraco_sets = forms.BooleanField(label=_("Anche un tris di 7 o più carte è burraco"), required=False, initial=True)
    pozzetto_must_be_played = forms.BooleanField(
        label=_("Il pozzetto preso con lo scarto vale solo se si arriva a giocarlo"), required=False
    )
    pinella_points = forms.TypedChoiceField(
        label=_("Punti di ogni pinella (solo Burraco Reale)"), choices=[(20, "20"), (10, "10")], coerce=int,
        initial=20, required=False, empty_value=20,
    )
    draw_seconds = forms.IntegerField(
        label=_("Secondi per pescare"), min_value=TIMER_MIN, max_value=TIMER_MAX, initial=30
    )
    play_seconds = forms.IntegerField(
        label=_("Secondi per il resto del turno"), min_value=TIMER_MIN, max_value=TIMER_MAX, initial=60
    )
    disconnect_grace_seconds = forms.IntegerField(
        label=_("Secondi di assenza prima che giochi il computer"), min_value=TIMER_MIN, max_value=TIMER_MAX, initial=45
    )
    rated = forms.BooleanField(label=_("Valida per la classifica"), required=False)
    private = forms.BooleanField(label=_("Privato: si entra solo con il link di invito"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("preset") in TWO_PLAYER_PRESETS and data.get("players") == 4:
            self.add_error("players", _("Questa variante si gioca solo in due."))
        if data.get("preset") == "reale":
            # Burraco Reale has sequences only and its own bonuses (RULES §15).
            if data.get("burraco_sets"):
                self.add_error("burraco_sets", _("Nel Burraco Reale non ci sono tris: solo scale."))
            if data.get("semipulito"):
                self.add_error("semipulito", _("Nel Burraco Reale il semipulito non c'è."))
        elif data.get("pinella_points", 20) != 20:
            self.add_error("pinella_points", _("La pinella vale 10 punti solo nel Burraco Reale."))
        if data.get("rated") and data.get("private"):
            self.add_error("rated", private_unrated_message())
        return data

    def ruleset(self) -> Ruleset:
        """The engine's rules for this table (call after is_valid())."""
        data = self.cleaned_data
        target = None if data["target"] == "none" else int(data["target"])
        return Ruleset.preset(
            data["preset"],
            players=data["players"],
            target=target,
            semipulito=data["semipulito"],
            close_by_melding=data["close_by_melding"],
            stock_exhausted=data["stock_exhausted"],
            burraco_sets=data["burraco_sets"],
            pozzetto_must_be_played=data["pozzetto_must_be_played"],
            pinella_points=data["pinella_points"],
            draw_seconds=data["draw_seconds"],
            play_seconds=data["play_seconds"],
            grace_seconds=data["disconnect_grace_seconds"],
        )


class PlayComputerForm(forms.Form):
    """"Gioca contro il computer": a variant for two and the computer's level. With no variant
    given, the page's default (the player's last one, or Mano unica) is the caller's."""

    level = forms.ChoiceField(label=_("Livello del computer"), choices=BotLevel.choices, initial=BotLevel.MEDIO,
                              error_messages={"invalid_choice": _("Livello del computer non valido."),
                                              "required": _("Livello del computer non valido.")})
    preset = forms.ChoiceField(label=_("Variante"), required=False,
                               choices=[(name, label) for name, label in PRESET_CHOICES if 2 in PRESET_PLAYERS[name]],
                               error_messages={"invalid_choice": _(
                                   "Variante sconosciuta: scegli una delle varianti proposte.")})


class SitForm(forms.Form):
    position = forms.IntegerField(min_value=0, max_value=3)


class FillForm(forms.Form):
    position = forms.IntegerField(min_value=0, max_value=3)
    level = forms.ChoiceField(choices=BotLevel.choices)


def preset_defaults() -> dict[str, dict[str, Any]]:
    """Each preset's option values in the form's terms, for the page to pre-fill the form."""
    out = {}
    for name, _label in PRESET_CHOICES:
        r = Ruleset.preset(name).to_dict()
        out[name] = {
            "target": "none" if r["target"] is None else str(r["target"]),
            "semipulito": r["semipulito"],
            "close_by_melding": r["close_by_melding"],
            "stock_exhausted": r["stock_exhausted"],
            "burraco_sets": r["burraco_sets"],
            "pozzetto_must_be_played": r["pozzetto_must_be_played"],
            "pinella_points": str(r.get("pinella_points", 20)),
            "draw_seconds": r["draw_seconds"],
            "play_seconds": r["play_seconds"],
            "disconnect_grace_seconds": r["grace_seconds"],
            "two_players_only": name in TWO_PLAYER_PRESETS,
        }
    return out


class TournamentForm(forms.Form):
    """A new tournament, for the organizers (staff). The service checks every combination and
    refuses with its own message (shown on the form); the form only reads the fields."""

    name = forms.CharField(label=_("Nome del torneo"), max_length=80)
    description = forms.CharField(label=_("Descrizione"), required=False, max_length=2000,
                                  widget=forms.Textarea(attrs={"rows": 3}))
    kind = forms.ChoiceField(label=_("Tipo"), choices=[("sitgo", _("Sit and go: parte appena è pieno")),
                                                        ("scheduled", _("Programmato: parte all'ora indicata"))])
    players = forms.TypedChoiceField(label=_("Giocatori per tavolo"), coerce=int, initial=2,
                                     choices=[(2, _("2: uno contro uno")), (4, _("4: a coppie"))])
    capacity = forms.IntegerField(label=_("Posti (persone, o coppie a quattro)"), min_value=2, max_value=64,
                                  initial=8, help_text=_("Un sit and go ha 4, 8 o 16 posti."))
    rounds = forms.IntegerField(label=_("Turni"), required=False, min_value=1, max_value=15,
                                help_text=_("Vuoto: quanti ne servono per avere un vincitore."))
    preset = forms.ChoiceField(label=_("Variante"), choices=PRESET_CHOICES, initial="mano_unica")
    target = forms.ChoiceField(label=_("Ogni turno"), initial="none",
                               choices=[("none", _("Una mano sola")), ("505", _("Una partita a 505"))])
    starts_at = forms.DateTimeField(label=_("Inizio (solo per un torneo programmato)"), required=False,
                                    widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    duplicate_deals = forms.TypedChoiceField(
        label=_("Torneo duplicato"), coerce=int, initial=0,
        choices=[(0, _("No: ogni tavolo ha le sue carte")), (1, _("Sì, 1 smazzata a turno")),
                 (2, _("Sì, 2 smazzate a turno")), (3, _("Sì, 3 smazzate a turno")), (4, _("Sì, 4 smazzate a turno"))],
        help_text=_("Tutti i tavoli di un turno giocano le stesse smazzate dagli stessi posti."))
    duplicate_scoring = forms.ChoiceField(
        label=_("Conteggio del duplicato"), initial="mp",
        choices=[("mp", _("Punti partita in percentuale")), ("vp", _("Punti vittoria (da 0 a 20)"))])
    draw_seconds = forms.IntegerField(label=_("Secondi per pescare"), min_value=TIMER_MIN, max_value=TIMER_MAX,
                                      initial=30)
    play_seconds = forms.IntegerField(label=_("Secondi per il resto del turno"), min_value=TIMER_MIN,
                                      max_value=TIMER_MAX, initial=60)

    def service_kwargs(self) -> dict[str, Any]:
        """The cleaned fields as `tournaments.create_tournament` takes them."""
        d = self.cleaned_data
        return {"name": d["name"], "description": d["description"], "kind": d["kind"], "players": d["players"],
                "capacity": d["capacity"], "rounds": d["rounds"], "preset": d["preset"],
                "target": None if d["target"] == "none" else int(d["target"]), "starts_at": d["starts_at"],
                "duplicate_deals": d["duplicate_deals"], "duplicate_scoring": d["duplicate_scoring"],
                "draw_seconds": d["draw_seconds"], "play_seconds": d["play_seconds"]}
