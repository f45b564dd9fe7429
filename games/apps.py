from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from threethirteen_site.checks import register_deploy_checks

        from .live.groups import close_sockets_on_log_out

        user_logged_out.connect(close_sockets_on_log_out, dispatch_uid="games.live.close_sockets_on_log_out")

        register_deploy_checks()  # `manage.py check --deploy`: what the multi-process set-up needs
