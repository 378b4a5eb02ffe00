from django.contrib import admin

from .models import Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = (
        "username",
        "display_name",
        "is_bot",
        "strategy",
        "matches",
        "wins",
        "rating_mu",
    )
    list_filter = ("is_bot", "strategy")
    search_fields = ("username", "display_name")
    readonly_fields = ("id", "created_at")
