from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_save, pre_save


class PlayersConfig(AppConfig):
    name = "players"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import receivers

        # A password change or a deactivation revokes the user's API tokens.
        user = settings.AUTH_USER_MODEL
        pre_save.connect(receivers.user_pre_save, sender=user, dispatch_uid="players.user_pre")
        post_save.connect(receivers.user_post_save, sender=user, dispatch_uid="players.user_post")
