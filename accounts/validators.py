"""Validators for accounts: the rule for new usernames, and password validators whose messages
Django's Italian catalogue does not yet translate.

Usernames: short, linkable everywhere, and not a look-alike of another.

A name has USERNAME_MIN_LENGTH to USERNAME_MAX_LENGTH characters: letters of one script (all
Latin, or all Cyrillic, all Greek, ...), the digits 0-9 and the signs _ . - (a sign neither first,
last nor next to another sign), and at least one letter. Why:

- a long name breaks the lobby and the table on a phone;
- "/", "?", "#", "%" or spaces make profile links fail or mislead; ".." would be a path step;
- a name mixing scripts, like "аdmin" with a Cyrillic "а", looks exactly like another player's
  name; so does a Cyrillic or Greek name made only of letters shaped like Latin ones ("раура").

Latin letters are those of Latin-1 and Latin Extended-A (Italian, French, German, Spanish,
Polish, Turkish... all fit); later blocks hold clicks and IPA signs shaped like "|" or "!".
Separate combining accents are refused (NFKC has already composed "e" + "´" into "é"); the
vowel signs of scripts that need them (Devanagari, Thai...) belong to their script and pass.

The script of a character comes from its Unicode name (unicodedata has no script property):
"CYRILLIC SMALL LETTER A" is Cyrillic. Japanese mixes kana and kanji, Korean hangul and hanja:
those mixes count as one script.

Names stored before this rule keep working (profile links use a path converter); this applies
to new accounts only (the sign-up form and accounts.services.user_create).
"""

from __future__ import annotations

import unicodedata

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

USERNAME_MIN_LENGTH = 3
USERNAME_MAX_LENGTH = 20
SIGNS = "_.-"
DIGITS = "0123456789"
LETTER_CATEGORIES = {"Lu", "Ll", "Lt", "Lo"}
MARK_CATEGORIES = {"Mn", "Mc"}
LATIN_LAST = 0x017F  # end of Latin Extended-A
# Mixes of scripts that one language writes together.
SCRIPT_FAMILIES = [{"HIRAGANA", "KATAKANA", "CJK"}, {"HANGUL", "CJK"}]
# The Japanese long-vowel mark is a modifier letter (Lm) used in ordinary katakana words.
KANA_EXTRAS = {"\u30fc": "KATAKANA"}

# Cyrillic and Greek letters that look like a Latin letter in common fonts. A name of one of
# those scripts that uses only these could pass for a Latin name.
LATIN_LOOKALIKES = set(
    "АВЕКМНОРСТУХІЈЅԀԌԚԜ"  # Cyrillic capitals
    "аеорсухіјѕԁԛԝһӏ"  # Cyrillic small letters
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"  # Greek capitals
    "οινρυκα"  # Greek small letters
)


def rule_text() -> str:
    """What a name may be, in the visitor's language: the form's help and every error's end."""
    return _(
        "Da %(min)d a %(max)d caratteri: lettere di un solo alfabeto (per esempio tutte latine), "
        "cifre 0-9 e i segni _ . - (non all'inizio, non alla fine e non due di seguito); "
        "almeno una lettera."
    ) % {"min": USERNAME_MIN_LENGTH, "max": USERNAME_MAX_LENGTH}


def script_of(char: str) -> str | None:
    """The script of a letter or mark, from its Unicode name; None for digits and signs."""
    if char in KANA_EXTRAS:
        return KANA_EXTRAS[char]
    name = unicodedata.name(char, "")
    if not name:
        return None
    return name.split(" ", 1)[0]


def _refuse(problem: str, code: str) -> ValidationError:
    return ValidationError(f"{problem} {rule_text()}", code=code)


def _one_script(scripts: set[str]) -> bool:
    return len(scripts) <= 1 or any(scripts <= family for family in SCRIPT_FAMILIES)


def validate_username(value: str) -> None:
    """Raise ValidationError (Italian, with the whole rule) unless `value` is a valid new name.
    `value` is expected NFKC-normalised, as Django's UsernameField and normalize_username do."""
    length = len(value)
    if length < USERNAME_MIN_LENGTH or length > USERNAME_MAX_LENGTH:
        raise _refuse(ngettext("Questo nome ha %(n)d carattere.", "Questo nome ha %(n)d caratteri.", length)
                      % {"n": length}, "username_length")
    scripts: set[str] = set()
    letters: list[str] = []
    previous_is_sign = True  # a sign may not come first
    previous_script: str | None = None
    for char in value:
        category = unicodedata.category(char)
        if char in SIGNS:
            if previous_is_sign:
                raise _refuse(_("I segni _ . - non possono stare all'inizio o due di seguito."), "username_signs")
            previous_is_sign, previous_script = True, None
            continue
        previous_is_sign = False
        if char in DIGITS:
            previous_script = None
            continue
        script = script_of(char)
        if category in LETTER_CATEGORIES or char in KANA_EXTRAS:
            if script == "LATIN" and ord(char) > LATIN_LAST:
                raise _refuse(_("La lettera «%(char)s» non è ammessa.") % {"char": char}, "username_char")
            if script == "CJK" and not unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH"):
                raise _refuse(_("Il segno «%(char)s» non è ammesso.") % {"char": char}, "username_char")
            scripts.add(script or "?")
            letters.append(char)
            previous_script = script
            continue
        if category in MARK_CATEGORIES and script not in (None, "COMBINING") and script == previous_script:
            continue  # a vowel sign or similar of the letter's own script
        if char.isspace():
            raise _refuse(_("Gli spazi non sono ammessi."), "username_char")
        shown = char if char.isprintable() else f"U+{ord(char):04X}"
        raise _refuse(_("Il carattere «%(char)s» non è ammesso.") % {"char": shown}, "username_char")
    if previous_is_sign:
        raise _refuse(_("I segni _ . - non possono stare alla fine."), "username_signs")
    if not letters:
        raise _refuse(_("Serve almeno una lettera."), "username_no_letter")
    if not _one_script(scripts):
        raise _refuse(
            _("Questo nome mescola alfabeti diversi (per esempio lettere latine e cirilliche), "
              "quindi potrebbe sembrare il nome di un altro."),
            "username_mixed_scripts",
        )
    if scripts and scripts != {"LATIN"} and all(char in LATIN_LOOKALIKES for char in letters):
        raise _refuse(
            _("Queste lettere sembrano latine ma non lo sono, quindi il nome potrebbe sembrare quello "
              "di un altro: scrivilo con lettere latine."),
            "username_lookalike",
        )


# ----------------------------------------------------------------------------- passwords


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
