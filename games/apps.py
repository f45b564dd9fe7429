from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from threethirteen_site.checks import register_deploy_checks

        register_deploy_checks()  # `manage.py check --deploy`: what the multi-process set-up needs
