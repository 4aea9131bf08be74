from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A player. The language preference follows the player from device to device."""

    class Language(models.TextChoices):
        ITALIAN = "it", "Italiano"
        ENGLISH = "en", "English"

    email = models.EmailField(_("e-mail"), blank=False)
    language = models.CharField(
        _("lingua"), max_length=8, choices=Language.choices, default=Language.ITALIAN
    )
    # The table's sounds start on or off by this (the table's own button still toggles them).
    sound_on = models.BooleanField(_("suoni al tavolo"), default=True)
    # "Gioca contro il computer" opens with the variant and level of the player's last game.
    quick_preset = models.CharField(max_length=20, blank=True, default="")
    quick_level = models.CharField(max_length=12, blank=True, default="")
    # The player's own entropy for every deal at their tables (docs/fairness.md), unless a table's
    # socket sent another with `hello`; public once a hand is over.
    client_seed = models.CharField(_("seme per i mazzi"), max_length=64, blank=True, default="", db_default="")
    # Set when the player deleted the account: the row stays (games keep their seats) but is
    # anonymous (accounts.services.user_delete).
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(Lower("email"), name="accounts_user_email_ci_unique"),
            # "Mario" and "mario" would be two players who look the same on every page.
            models.UniqueConstraint(
                Lower("username"),
                name="accounts_user_username_ci_unique",
                violation_error_message=_("Questo nome utente è già in uso: scegline un altro."),
            ),
        ]
