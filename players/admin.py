from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from rest_framework.authtoken.models import TokenProxy

from pisyedili_api.admin import ReadOnlyAdmin
from pisyedili_api.errors import ApplicationError

from .models import ApiToken, Board, BoardEntry, Player, RatingHistory
from .services import display_name_check

# API tokens are players.ApiToken (hashed); DRF's table of plain keys is not used.
if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class UserAdmin(auth_admin.UserAdmin):
    """Django's, except that a player's account is not deleted here: its player deletes it
    (POST /auth/account/delete), which ends their matches and tournaments as they would and
    keeps their played matches under an anonymous name (players.services.player_delete). A
    staff account with no player is deleted as usual; a player's is deactivated."""

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and Player.objects.filter(user_id=obj.pk).exists():
            return False
        return super().has_delete_permission(request, obj)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        # The list's bulk deletion would not ask each account the question above.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


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


class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ("display_name",)

    def clean_display_name(self) -> str:
        """The API's rules for a display name (PATCH players/me) hold here too."""
        display_name: str = self.cleaned_data["display_name"]
        try:
            display_name_check(display_name)
        except ApplicationError as refusal:
            messages = (refusal.detail or {}).get("display_name", refusal.message)
            raise forms.ValidationError(messages) from refusal
        return display_name


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Only the display name is editable (docs/operations.md "The admin"): the rating and the
    counters are settlement's sums, the rest the account's identity. No add, no delete (an
    account is deleted by its player, anonymised, players.services.player_delete)."""

    form = PlayerForm
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
    fields = (
        "id",
        "username",
        "display_name",
        "user",
        "is_bot",
        "strategy",
        "rating_mu",
        "rating_sigma",
        "matches",
        "wins",
        "deals_played",
        "deals_won",
        "penalty_points",
        "luck_deals",
        "luck_sum",
        "skill_deals",
        "skill_sum",
        "created_at",
        "deleted_at",
    )
    readonly_fields = tuple(name for name in fields if name != "display_name")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.deleted_at is not None:
            return False  # a deleted account's row stays anonymous
        return super().has_change_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Board)
class BoardAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("ruleset", "seats", "player_count", "created_at")
    readonly_fields = ("seats", "ruleset", "rules", "player_count", "created_at")


@admin.register(BoardEntry)
class BoardEntryAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """Settlement writes these rows incrementally; an edit would break the sums."""

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


@admin.register(RatingHistory)
class RatingHistoryAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("player", "match_id", "finished_at", "place", "rating_ordinal")
    list_select_related = ("player",)
    raw_id_fields = ("player",)
    search_fields = ("player__username",)
    show_full_result_count = False
