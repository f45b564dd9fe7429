from django.contrib import admin

from .models import Game, Move, RoundResult, Seat, Variant


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "is_active", "position")
    prepopulated_fields = {"slug": ("name",)}


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "variant_name", "status", "seat_count", "version", "updated_at")
    list_filter = ("status",)
    inlines = [SeatInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "seat", "action", "by_bot", "created_at")


@admin.register(RoundResult)
class RoundResultAdmin(admin.ModelAdmin):
    list_display = ("game", "round_number", "seat", "points", "went_out")
