from django.contrib import admin

from .models import Deal, IdempotencyRecord, Match, Move, ScoreEntry, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ("player",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
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
    exclude = ("state",)  # the live deal's hands, stock and seed: secret even from staff
    raw_id_fields = ("created_by", "live_deal")
    inlines = [SeatInline]


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("match", "number", "status", "dealer", "opener", "commitment", "started_at")
    ordering = ("-id",)  # newest first; the model orders a match's rows among themselves
    list_filter = ("status",)
    raw_id_fields = ("match",)
    # Secret until the deal is over; GET …/deals/{n} reveals them then.
    exclude = ("seed", "hands_at_start", "final_state")


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("match", "seq", "deal_number", "seat", "action", "card", "suit", "by_bot", "at")
    ordering = ("-id",)  # newest first; the model orders a match's rows among themselves
    list_filter = ("action", "by_bot")
    raw_id_fields = ("match", "deal", "player")
    exclude = ("drawn",)  # hidden from everyone but the drawer while the deal is on


@admin.register(ScoreEntry)
class ScoreEntryAdmin(admin.ModelAdmin):
    list_display = ("match", "deal", "seat", "player", "penalty", "multiplier", "won")
    ordering = ("-id",)  # newest first; the model orders a match's rows among themselves
    raw_id_fields = ("match", "deal", "player")


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(admin.ModelAdmin):
    list_display = ("player", "key", "match", "created_at")
    raw_id_fields = ("player", "match")
