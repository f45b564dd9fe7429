"""Who wrote each seat's seed contribution, and when it was fixed (found by a tester: the pages
showed the site's random contributions as if players had typed them).

Rows written before can only be told apart by their text, so the backfill is
conservative: it never claims more protection than the game may have had.
A contribution of 16 lower-case hex digits is the site's (``secrets.token_hex(8)``;
a person who typed exactly that is counted as the site), fixed at the deal
when the game was dealt (bots' and invitees' were made then), else when its
seat was taken.  Other text was typed by a person: the creator's (seat 0,
still the game's creator) with the game's creation, anyone else's on joining,
after the commitment was shown.
"""

import re

from django.db import migrations, models

SITE_MADE = re.compile(r"[0-9a-f]{16}")


def backfill(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    seats = Seat.objects.filter(game__shuffle_version=2).exclude(seed_contribution="").select_related("game")
    for seat in seats.iterator():
        game = seat.game
        taken = seat.joined_at or game.created_at
        if SITE_MADE.fullmatch(seat.seed_contribution):
            seat.seed_contribution_source = "site"
            seat.seed_contribution_at = game.started_at or taken
        elif seat.position == 0 and seat.user_id is not None and seat.user_id == game.created_by_id:
            seat.seed_contribution_source = "creator"
            seat.seed_contribution_at = game.created_at
        else:
            seat.seed_contribution_source = "player"
            seat.seed_contribution_at = taken
        seat.save(update_fields=["seed_contribution_source", "seed_contribution_at"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0017_audit_target_parts"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="seed_contribution_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="seed contribution fixed at"),
        ),
        migrations.AddField(
            model_name="seat",
            name="seed_contribution_source",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "none yet"),
                    ("site", "made up by the site"),
                    ("creator", "typed when the game was created"),
                    ("player", "typed after the commitment was shown"),
                ],
                default="",
                max_length=10,
                verbose_name="seed contribution by",
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
