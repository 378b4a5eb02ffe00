from django.contrib import admin

from pisyedili_api.admin import ReadOnlyAdmin

from .models import Entrant, Round, Table, Tournament

# Read-only (ReadOnlyAdmin, docs/operations.md "The admin"): the tournament's rounds, tables
# and standings are the tournament services' to write.


class EntrantInline(ReadOnlyAdmin, admin.TabularInline):
    model = Entrant
    raw_id_fields = ("player",)
    extra = 0


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("name", "format", "table_size", "status", "current_round", "rounds_total")
    list_filter = ("format", "status")
    search_fields = ("name",)
    raw_id_fields = ("organizer",)
    readonly_fields = ("id", "created_at", "started_at", "finished_at", "schedule")
    inlines = [EntrantInline]


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("tournament", "number", "started_at", "finished_at")
    ordering = ("-id",)  # newest first
    raw_id_fields = ("tournament",)
    exclude = ("seed_key",)  # the duplicate round's seed source: its deals' seeds


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("tournament", "round", "number", "match")
    ordering = ("-id",)  # newest first
    raw_id_fields = ("tournament", "round", "match")
