"""Usernames unique ignoring case (the sign-up form already refused "MARIO" next to "mario";
this closes the race between two sign-ups and any other way in).

If the database already holds two names that differ only in case, the constraint cannot be
built: the check below stops with the list, to be resolved by hand (rename one) first.
"""

import django.db.models.functions.text
from django.db import migrations, models
from django.db.models import Count
from django.db.models.functions import Lower


def refuse_duplicates(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    clashes = (
        User.objects.annotate(folded=Lower("username")).values("folded")
        .annotate(n=Count("id")).filter(n__gt=1).values_list("folded", flat=True)
    )
    clashes = list(clashes[:20])
    if clashes:
        raise RuntimeError(
            "These usernames exist more than once ignoring case; rename all but one of each "
            "before migrating: " + ", ".join(clashes)
        )


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.RunPython(refuse_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='user',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('username'), name='accounts_user_username_ci_unique', violation_error_message='Questo nome utente è già in uso: scegline un altro.'),
        ),
    ]
