"""Changelist filters: only those a list offers.

Django's admin lets a changelist URL filter on any field of the model itself
(``?seed__gt=X``, ``?state__hands__1__0=2S``, ``?invite_token__gte=...``):
a staff member could read a game's seed in about 62 requests by bisection,
and with it every hand.  :class:`StrictLookupsMixin` allows only the
parameters of the admin's own list filters and of its date hierarchy (with
plain numbers only); anything else makes Django raise
``DisallowedModelAdminLookup``, a 400.  The search box (``q``), the ordering
(``o``), the page (``p``) and the other parameters of the changelist itself
never reach ``lookup_allowed``.  An action posted for rows that are not ids of the list is a 400 too.

Every admin of the project uses it; :func:`restrict_lookups` puts it on an
admin registered by another app (Django's groups).  A test walks
``admin.site._registry``, so an admin registered without it is caught.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.admin.filters import FieldListFilter, ListFilter, SimpleListFilter
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import get_fields_from_path
from django.core.exceptions import BadRequest, ValidationError
from django.db.models import Field, Model, QuerySet
from django.http import HttpRequest, HttpResponse

from games.numbers import plain_number

#: The parts of a date hierarchy's parameters, with the values a calendar allows.
#: (Not year 1: the first day of year 1 in a zone east of UTC is before Python's earliest datetime in UTC.)
DATE_HIERARCHY_PARTS = {"year": (2, 9998), "month": (1, 12), "day": (1, 31)}

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[Any]
else:
    _Base = object


class StrictLookupsMixin(_Base):
    """Refuse (400) any changelist lookup that is not one of the list's own filters."""

    def offered_lookups(self, request: HttpRequest | None) -> set[str]:
        """The query parameters of the list filters (what their links and boxes put in the URL)."""
        lookups: set[str] = set()
        list_filter = self.get_list_filter(request) if request is not None else self.list_filter
        for item in list_filter:
            if isinstance(item, type) and issubclass(item, SimpleListFilter):
                lookups.add(str(item.parameter_name))
                continue
            # Made with no parameters, a filter only tells which ones it reads.
            spec: Any
            if isinstance(item, type) and issubclass(item, ListFilter):
                spec = item(request, {}, self.model, self)  # type: ignore[arg-type]
            else:
                field: Any = item[0] if isinstance(item, (list, tuple)) else item
                filter_class: Any = item[1] if isinstance(item, (list, tuple)) else FieldListFilter.create
                field_path = None
                if not isinstance(field, Field):
                    field_path = field
                    field = get_fields_from_path(self.model, field_path)[-1]
                spec = filter_class(field, request, {}, self.model, self, field_path=field_path)
            lookups.update(str(name) for name in spec.expected_parameters() if name)
        return lookups

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if "\x00" in str(value):
            return False  # PostgreSQL refuses NUL in text: a 400 here, not a 500 there
        if self.date_hierarchy:
            for part, (low, high) in DATE_HIERARCHY_PARTS.items():
                if lookup == f"{self.date_hierarchy}__{part}":
                    # Django turns these into datetime(): a year of 86400 or 10**30 would raise.
                    return plain_number(str(value), low, high)
        return lookup in self.offered_lookups(request)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        if "\x00" in search_term:  # the autocomplete's term (the changelist's form refuses NUL itself)
            return queryset.none(), False
        return super().get_search_results(request, queryset, search_term)

    def response_action(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        """An action on rows that are no ids of this list (``_selected_action=abc``, a forged post) is a 400:
        Django's admin passed them to the query, which raised (a 500)."""
        pk = self.model._meta.pk
        assert pk is not None
        for value in request.POST.getlist(ACTION_CHECKBOX_NAME):
            try:
                pk.run_validators(pk.to_python(value))  # an integer id's validators hold the database's range
            except (ValidationError, ValueError, TypeError) as error:
                raise BadRequest("not a row of this list") from error
        return super().response_action(request, queryset)


def restrict_lookups(site: admin.AdminSite, model: type[Model]) -> None:
    """Register ``model`` again on ``site`` with its admin class made strict (for admins of other apps)."""
    if not site.is_registered(model):
        return
    current = type(site.get_model_admin(model))
    if issubclass(current, StrictLookupsMixin):
        return
    strict = type(current.__name__, (StrictLookupsMixin, current), {"__module__": __name__})
    site.unregister(model)
    site.register(model, strict)
