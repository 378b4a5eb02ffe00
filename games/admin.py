from django.contrib import admin

from pisyedili_api.admin import ReadOnlyAdmin

from .models import Deal, IdempotencyRecord, Match, Move, ScoreEntry, Seat

# Every game record is read-only here (ReadOnlyAdmin, docs/operations.md "The admin"), and no
# page shows what a player may not see: a live hand, the stock, a seed, drawn cards.


class SeatInline(ReadOnlyAdmin, admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ("player",)


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = (
        "id",
        "status",
        "seat_count",
        "current_deal",
        "deals_total",
        "version",
        "created_at",
    )
    list_filter = ("status",)
    readonly_fields = ("id", "created_at")
    # The live deal's hands, stock and seed: secret even from staff; so are a duplicate
    # round's seed source and a private table's join code.
    exclude = ("state", "seed_key", "join_code")
    raw_id_fields = ("created_by", "live_deal")
    inlines = [SeatInline]


@admin.register(Deal)
class DealAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("match", "number", "status", "dealer", "opener", "commitment", "started_at")
    ordering = ("-id",)  # newest first; the model orders a match's rows among themselves
    list_filter = ("status",)
    raw_id_fields = ("match",)
    # Secret until the deal is over; GET …/deals/{n} reveals them then.
    exclude = ("seed", "hands_at_start", "final_state")


@admin.register(Move)
class MoveAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("match", "seq", "deal_number", "seat", "action", "card", "suit", "by_bot", "at")
    ordering = ("-id",)  # newest first; the model orders a match's rows among themselves
    list_filter = ("action", "by_bot")
    raw_id_fields = ("match", "deal", "player")
    exclude = ("drawn",)  # hidden from everyone but the drawer while the deal is on


@admin.register(ScoreEntry)
class ScoreEntryAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("match", "deal", "seat", "player", "penalty", "multiplier", "won")
    ordering = ("-id",)  # newest first; the model orders a match's rows among themselves
    raw_id_fields = ("match", "deal", "player")


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("player", "key", "match", "created_at")
    raw_id_fields = ("player", "match")
    # The answer a retried move gets again: the mover's view, their hand and drawn cards.
    exclude = ("response",)
