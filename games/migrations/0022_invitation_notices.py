from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Now


def told_already(apps, schema_editor):
    """The seats held before the clock sent invitations count as told: its first pass would otherwise e-mail
    every invitation waiting, however old (a review). They were held by their table's creator."""
    Seat, Game = apps.get_model("games", "Seat"), apps.get_model("games", "Game")
    creator = Subquery(Game.objects.filter(pk=OuterRef("game_id")).values("created_by")[:1])
    Seat.objects.filter(reserved_for__isnull=False, user__isnull=True).update(
        invitation_sent_at=Now(), reserved_by=creator
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0021_seat_reserved_for"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="invitation_sent_at",
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name="invitation sent at"),
        ),
        migrations.AddField(
            model_name="seat",
            name="reserved_by",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="held by",
            ),
        ),
        migrations.RunPython(told_already, migrations.RunPython.noop),
    ]
