from django.apps import AppConfig
from django.db.models.signals import post_delete


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from live import hub

        # Any deletion of an API token (logout, rotation, pruning, a password change, the
        # account deleted) ends its streams (live.hub).
        post_delete.connect(
            hub.token_deleted, sender="players.ApiToken", dispatch_uid="games.token_deleted"
        )
