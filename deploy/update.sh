#!/bin/sh
# The steps of an install or an update, before the server processes and the clock (re)start:
# the database's tables, the built-in variants, the translations, the static files for the proxy,
# and `check --deploy`, which says what is misconfigured (it stops the script on an error; its
# warnings are printed and worth reading).  Run it in the app's directory, as its owner, with the
# site's environment (deploy/env.example):
#
#     set -a; . /etc/threethirteen/env; set +a; deploy/update.sh
#     systemctl restart 'threethirteen-daphne@*' threethirteen-gameclock
#
# PYTHON: the virtualenv's python (default .venv/bin/python).  tests/deploy/test_layout.py runs it.
set -eu
PYTHON=${PYTHON:-.venv/bin/python}
"$PYTHON" manage.py migrate --noinput
"$PYTHON" manage.py load_variants
"$PYTHON" manage.py rate_games
"$PYTHON" manage.py compile_catalogs
"$PYTHON" manage.py collectstatic --noinput
"$PYTHON" manage.py check --deploy
