from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.forms import UsernameField
from django.utils.translation import gettext_lazy as _

from .models import User
from .selectors import email_taken


class SignupForm(forms.Form):
    """Sign up: username, e-mail, password twice, through Django's password validators."""

    username = UsernameField(
        label=_("Nome utente"),
        max_length=150,
        help_text=_("Fino a 150 caratteri: lettere, cifre e @ . + - _"),
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

    def clean_username(self):
        username = self.cleaned_data["username"]
        User.username_validator(username)
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(_("Questo nome utente è già in uso: scegline un altro."))
        return username

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
    language = forms.ChoiceField(label=_("Lingua del sito"), choices=User.Language.choices)
