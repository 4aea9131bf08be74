"""Password validators whose messages Django's Italian catalogue does not yet translate."""

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.utils.translation import ngettext


class MinimumLengthValidator(password_validation.MinimumLengthValidator):
    def validate(self, password, user=None):
        if len(password) < self.min_length:
            raise ValidationError(self.get_error_message(), code="password_too_short",
                                  params={"min_length": self.min_length})

    def get_error_message(self):
        return ngettext(
            "La password è troppo corta: serve almeno %(min_length)d carattere.",
            "La password è troppo corta: servono almeno %(min_length)d caratteri.",
            self.min_length,
        ) % {"min_length": self.min_length}

    def get_help_text(self):
        return ngettext(
            "Almeno %(min_length)d carattere.",
            "Almeno %(min_length)d caratteri.",
            self.min_length,
        ) % {"min_length": self.min_length}
