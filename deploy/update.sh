#!/bin/sh
# The steps of an install or an update, before the server processes and the clock (re)start:
# the database's tables, the built-in variants, the translations, the static files for the proxy,
# and `check --deploy`, which says what is misconfigured (it stops the script on an error; its
# warnings are printed and worth reading).  Each runs through deploy/manage, so with the site's
# environment (/etc/threethirteen/env) and as the app's owner; back the database up first (the
# README's "Deploying" says how, and in what order an update goes):
#
#     sudo -u deploy /srv/threethirteen/app/deploy/update.sh
#
# THREETHIRTEEN_ENV and PYTHON as for deploy/manage.  tests/deploy/test_layout.py runs it.
set -eu
manage="$(dirname "$0")/manage"
"$manage" migrate --noinput
"$manage" load_variants
"$manage" rate_games
"$manage" compile_catalogs
"$manage" collectstatic --noinput
"$manage" check --deploy
