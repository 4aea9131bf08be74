"""Indexes for the site pages at size (docs/performance.md, "Site pages"), PostgreSQL only.

- rating_ranked_idx: the ranked players of a leaderboard (games >= 10) in board order, with the
  shown counts included, so a page (even a deep one), a count and a rank are index-only scans.
- accounts_user_username_upper_like: `username__istartswith` (the leaderboard's player search)
  compiles to UPPER(username::text) LIKE 'X%'; this expression index with text_pattern_ops
  serves it without scanning every user.

Raw SQL because both are PostgreSQL features (INCLUDE, operator classes on an expression) and
neither changes the models; SQLite, used for development, does without them.
"""

from django.db import migrations

CREATE = [
    "CREATE INDEX IF NOT EXISTS rating_ranked_idx ON games_playerrating (mode, rating DESC, user_id) "
    "INCLUDE (games, wins, draws, losses) WHERE games >= 10",
    "CREATE INDEX IF NOT EXISTS accounts_user_username_upper_like ON accounts_user "
    "(UPPER(username::text) text_pattern_ops)",
]
DROP = [
    "DROP INDEX IF EXISTS rating_ranked_idx",
    "DROP INDEX IF EXISTS accounts_user_username_upper_like",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for sql in statements:
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0001_initial"),
        ("accounts", "0001_initial"),
    ]

    operations = [migrations.RunPython(_run(CREATE), _run(DROP), elidable=False)]
