"""Why each flagged turn was flagged, stored with the analysis: the page worked it out on every view,
by replaying the game (about a tenth of a second).  Null for analyses done before: worked out
once, the first time their page is viewed.  Nullable, so the old code's inserts still work."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0018_seat_contribution_source"),
    ]

    operations = [
        migrations.AddField(
            model_name="gameanalysis",
            name="explanations",
            field=models.JSONField(
                blank=True,
                help_text="Why each flagged turn was flagged: the hand and what each choice leaves, worked out once it is done.",
                null=True,
                verbose_name="explanations",
            ),
        ),
    ]
