from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in
        from django.core import checks

        from .push import check_vapid_keys
        from .throttle import remember_device

        checks.register(check_vapid_keys)
        user_logged_in.connect(remember_device, dispatch_uid="accounts.throttle.remember_device")
