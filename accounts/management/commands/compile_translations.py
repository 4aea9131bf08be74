"""Compile every locale/*/LC_MESSAGES/*.po into its .mo with polib.

Django's own compilemessages needs GNU gettext's msgfmt, which a fresh machine with only Python
may lack; the set-up command uses this instead so the English site works everywhere.
"""

from pathlib import Path

import polib
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile the project's .po translation catalogues into .mo files (no gettext needed)."

    def handle(self, *args, **options):
        count = 0
        for locale_dir in settings.LOCALE_PATHS:
            for po_path in Path(locale_dir).glob("*/LC_MESSAGES/*.po"):
                mo_path = po_path.with_suffix(".mo")
                if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
                    continue
                polib.pofile(str(po_path)).save_as_mofile(str(mo_path))
                count += 1
        self.stdout.write(f"compiled {count} catalogue(s)")
