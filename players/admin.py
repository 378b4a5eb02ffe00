from django.contrib import admin
from rest_framework.authtoken.models import TokenProxy

from .models import ApiToken, Board, BoardEntry, Player, RatingHistory

# API tokens are players.ApiToken (hashed); DRF's table of plain keys is not used.
if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Read-only (only digests are stored); deleting a row revokes the token."""

    list_display = ("digest", "user", "created_at", "last_used")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("user__username",)
    show_full_result_count = False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False


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


@admin.register(Board)
class BoardAdmin(admin.ModelAdmin):
    list_display = ("ruleset", "seats", "player_count", "created_at")
    readonly_fields = ("seats", "ruleset", "rules", "player_count", "created_at")


@admin.register(BoardEntry)
class BoardEntryAdmin(admin.ModelAdmin):
    """Read-only: settlement writes these rows incrementally; an edit would break the sums."""

    list_display = (
        "player",
        "pool",
        "matches",
        "wins",
        "avg_penalty",
        "rating_ordinal",
    )
    list_filter = ("pool__period_kind", "is_human")
    list_select_related = ("player", "pool__board")
    raw_id_fields = ("player", "pool")
    search_fields = ("player__username",)
    show_full_result_count = False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False


@admin.register(RatingHistory)
class RatingHistoryAdmin(admin.ModelAdmin):
    list_display = ("player", "match_id", "finished_at", "place", "rating_ordinal")
    list_select_related = ("player",)
    raw_id_fields = ("player",)
    search_fields = ("player__username",)
    show_full_result_count = False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False
