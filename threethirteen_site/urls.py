from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from accounts import push_views
from accounts import views as accounts_views
from threethirteen_site import health

urlpatterns = [
    # For the proxy and monitors: 200 when the database and the channel layer answer, else 503.
    path("healthz", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    # The words of the site's scripts (the djangojs catalogs) in the request's language.
    path("i18n/js/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    # Django's set_language, which also saves a signed-in person's choice on their profile.
    path("i18n/setlang/", accounts_views.set_language, name="set_language"),
    # The Web Push service worker, at the root so that its scope is the whole site (404 while push is off).
    path("sw.js", push_views.service_worker, name="service_worker"),
    path("", include("games.urls")),
]

# A request that met a lost database connection gets a 503 "try again" page, anything else the 500 page.
handler500 = "threethirteen_site.errors.server_error"
# The 404 page says why when a view gave the reader a reason (``errors.NotFound``).
handler404 = "threethirteen_site.errors.page_not_found"
