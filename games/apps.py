from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_save

        from threethirteen_site.checks import register_deploy_checks

        from .live.groups import check_sockets_of_account_on_save, close_sockets_on_log_out

        user_logged_out.connect(close_sockets_on_log_out, dispatch_uid="games.live.close_sockets_on_log_out")
        post_save.connect(
            check_sockets_of_account_on_save, sender=get_user_model(), dispatch_uid="games.live.check_sockets"
        )
        reconnect_the_pool_every_second()
        from .admin.icons import use_translated_boolean_icons

        use_translated_boolean_icons()  # the admin's yes/no icons read out in the reader's language
        register_deploy_checks()  # `manage.py check --deploy`: what the multi-process set-up needs


def reconnect_the_pool_every_second() -> None:
    """psycopg_pool tries again to open a connection it lost after 1 s, and doubles the pause after each
    failure: after a 40 s outage of PostgreSQL the pools waited up to 16 s more before trying again, every
    request meanwhile waited DATABASE_POOL_TIMEOUT for the 503 page, and the site came back 20 s after the
    database did.  A try every second, for as long as it takes, costs PostgreSQL nothing while it is down."""
    from psycopg_pool.base import AttemptWithBackoff

    AttemptWithBackoff.DELAY_BACKOFF = 1.0
