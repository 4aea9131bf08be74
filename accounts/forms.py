from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.forms import UsernameField
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

from . import services
from .models import User
from .selectors import email_taken
from .validators import USERNAME_MAX_LENGTH, USERNAME_MIN_LENGTH, rule_text


class SignupForm(forms.Form):
    """Sign up: username, e-mail, password twice, through Django's password validators."""

    # No max_length here: the username rule reports a wrong length with the whole rule.
    username = UsernameField(
        label=_("Nome utente"),
        widget=forms.TextInput(attrs={
            "autocapitalize": "none", "autocomplete": "username",
            "minlength": USERNAME_MIN_LENGTH, "maxlength": USERNAME_MAX_LENGTH,
        }),
    )
    email = forms.EmailField(label=_("E-mail"))
    password1 = forms.CharField(
        label=_("Password"), strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )
    password2 = forms.CharField(
        label=_("Ripeti la password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = rule_text()  # in the language of this request

    def clean_username(self):
        return services.check_new_username(self.cleaned_data["username"])

    def clean_email(self):
        email = self.cleaned_data["email"]
        if email_taken(email):
            raise forms.ValidationError(_("Esiste già un account con questo indirizzo e-mail."))
        return email

    def clean(self):
        cleaned = super().clean()
        p1, p2 = cleaned.get("password1"), cleaned.get("password2")
        if p1 and p2 and p1 != p2:
            self.add_error("password2", _("Le due password non coincidono."))
        elif p1:
            probe = User(username=cleaned.get("username", ""), email=cleaned.get("email", ""))
            try:
                password_validation.validate_password(p1, probe)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return cleaned


class LanguageForm(forms.Form):
    """The settings' preferences: the site's language and the table's sounds."""

    language = forms.ChoiceField(label=_("Lingua del sito"), choices=User.Language.choices)
    sound_on = forms.BooleanField(
        label=_("Suoni al tavolo"), required=False,
        help_text=_("Come partono i suoni quando apri un tavolo; al tavolo il pulsante «Suoni» li accende e spegne."),
    )
    client_seed = forms.CharField(
        label=_("Il tuo seme per i mazzi"), required=False, max_length=64,
        validators=[RegexValidator(r"^[\x21-\x7e]*$", _("Solo caratteri ASCII stampabili, senza spazi."))],
        help_text=_("Facoltativo: si mescola al seme del server in ogni mano che giochi, così l'ordine delle carte "
                    "non lo decide il server da solo. Lo vedono tutti a mano finita."),
    )


def _password_field(autocomplete: str = "current-password") -> forms.CharField:
    return forms.CharField(label=_("La tua password"), strip=False,
                           widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}))


class EmailChangeForm(forms.Form):
    """A new address, confirmed by a link sent to it (accounts.services.email_change_request)."""

    prefix = "email"
    new_email = forms.EmailField(label=_("Nuovo indirizzo e-mail"),
                                 widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password = _password_field()


class DeleteAccountForm(forms.Form):
    """Deleting the account asks for the password and a tick that says the player means it."""

    prefix = "delete"
    password = _password_field()
    confirm = forms.BooleanField(
        label=_("Ho capito: l'account sparisce per sempre, le mie partite restano a nome «giocatore eliminato»."),
        error_messages={"required": _("Spunta la casella per confermare che vuoi eliminare l'account.")},
    )
