#!/bin/sh
# Restart the site after an update with nobody seeing an error: the server processes one at a time,
# each once the one before answers again, then the move clock.  nginx sends a request that finds a
# process down to another one (proxy_next_upstream in deploy/nginx/threethirteen.conf); restarted all
# at once they left some 8 s of "502 Bad Gateway".  The pages' sockets reconnect by themselves.  As root:
#
#     /srv/threethirteen/app/deploy/restart.sh
#
# The server processes are the running threethirteen-daphne@PORT instances.  THREETHIRTEEN_ENV as for
# deploy/manage (the Host header of the wait, from ALLOWED_HOSTS).  tests/deploy/test_layout.py
# restarts its processes in this order and sees no error through nginx.
set -eu
env_file=${THREETHIRTEEN_ENV:-/etc/threethirteen/env}
host=$(set -a; . "$env_file"; printf '%s' "${ALLOWED_HOSTS%%,*}" | sed 's/^\.//')
ports=$(systemctl list-units --plain --no-legend --state=active 'threethirteen-daphne@*.service' |
    sed -n 's/^threethirteen-daphne@\([0-9][0-9]*\)\.service.*/\1/p')
if [ -z "$ports" ]; then
    echo "deploy/restart.sh: no threethirteen-daphne@PORT is running (systemctl enable --now ... first)" >&2
    exit 1
fi
for port in $ports; do
    echo "restarting threethirteen-daphne@$port"
    systemctl restart "threethirteen-daphne@$port"
    # Any answer will do (a 503 of /healthz too: the database's or Redis's trouble is no reason to wait).
    python3 - "$port" "$host" <<'PY' || { echo "threethirteen-daphne@$port did not answer within 60 s: see journalctl -u threethirteen-daphne@$port" >&2; exit 1; }
import sys, time, urllib.error, urllib.request

port, host = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 60
while True:
    try:
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host}), timeout=5)
        break
    except urllib.error.HTTPError:
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.2)
PY
done
echo "restarting threethirteen-gameclock"
systemctl restart threethirteen-gameclock
