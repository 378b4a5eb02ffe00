from django.contrib import admin

from .models import Entrant, Round, Table, Tournament


class EntrantInline(admin.TabularInline):
    model = Entrant
    raw_id_fields = ("player",)
    extra = 0


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "format", "table_size", "status", "current_round", "rounds_total")
    list_filter = ("format", "status")
    search_fields = ("name",)
    raw_id_fields = ("organizer",)
    readonly_fields = ("id", "created_at", "started_at", "finished_at", "schedule")
    inlines = [EntrantInline]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "started_at", "finished_at")
    ordering = ("-id",)  # newest first
    raw_id_fields = ("tournament",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("tournament", "round", "number", "match")
    ordering = ("-id",)  # newest first
    raw_id_fields = ("tournament", "round", "match")
