"""The site as the benches serve it: every page of the site, plus one trivial page.

    DJANGO_SETTINGS_MODULE=bench.site

The trivial page (``/bench/trivial/``, in ``bench/site_urls.py``) answers a
short text through the whole middleware stack without touching the database
(requested without a cookie): what a request costs on this server before
any work of the site.  Benches compare the site's pages with it (requests
per second, as ratios).
"""

from threethirteen_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.site_urls"
