#!/usr/bin/env bash
# A Citus cluster on one machine, for the Citus test suite and for trying tenant-migrate on Citus:
# a coordinator and two workers with schema-based sharding on (docs/Citus.md).
#
#   scripts/citus-cluster.sh start    # idempotent; prints the coordinator URL (TEST_CITUS_URL)
#   scripts/citus-cluster.sh stop     # stops the three servers, keeps their data
#   scripts/citus-cluster.sh destroy  # stops them and removes their data
#   scripts/citus-cluster.sh url      # prints the coordinator URL
#
# Needs PostgreSQL with Citus installed (citus.so in its lib directory). initdb and pg_ctl refuse
# to run as root: as root, the servers run as the `postgres` user. Environment:
#   CITUS_PG_BIN   PostgreSQL's bin directory (default: pg_config --bindir, else /usr/lib/postgresql/15/bin)
#   CITUS_DIR      where data, sockets and logs go (default /tmp/tenant-migrator-citus)
#   CITUS_PORT     the coordinator's port; the workers use the next two (default 9700)
#   CITUS_DB       the database (default tm_citus)
set -euo pipefail

PG_BIN=${CITUS_PG_BIN:-$( (command -v pg_config >/dev/null && pg_config --bindir) || echo /usr/lib/postgresql/15/bin)}
[ -x "$PG_BIN/initdb" ] || PG_BIN=/usr/lib/postgresql/15/bin
BASE=${CITUS_DIR:-/tmp/tenant-migrator-citus}
PORT=${CITUS_PORT:-9700}
DB=${CITUS_DB:-tm_citus}
NODES=(coordinator worker1 worker2)
SOCKETS="$BASE/sockets"

url() { echo "postgres://postgres@localhost:$PORT/$DB"; }
port_of() { echo $((PORT + $1)); }

# Runs a command as the user that owns the cluster.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Superuser SQL on node $1 (index), database $2.
sql() { as_owner env PGOPTIONS='-c client_min_messages=warning' "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$SOCKETS" -p "$(port_of "$1")" -U postgres -d "$2" -tA -c "$3"; }

start() {
    [ -f "$("$PG_BIN/pg_config" --pkglibdir 2>/dev/null || echo /usr/lib/postgresql/15/lib)/citus.so" ] \
        || { echo "citus.so is not installed for $PG_BIN (build it: bash ../shared/citus/build.sh)" >&2; exit 1; }
    mkdir -p "$BASE" "$SOCKETS"
    [ "$(id -u)" = 0 ] && chown postgres: "$BASE" "$SOCKETS"
    for i in 0 1 2; do
        local data="$BASE/${NODES[$i]}"
        if [ ! -f "$data/PG_VERSION" ]; then
            as_owner "$PG_BIN/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
            cat >>"$data/postgresql.conf" <<CONF
# scripts/citus-cluster.sh
shared_preload_libraries = 'citus'
port = $(port_of "$i")
listen_addresses = 'localhost'
unix_socket_directories = '$SOCKETS'
max_connections = 300
max_prepared_transactions = 600
max_locks_per_transaction = 256
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
        fi
        if ! as_owner "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
            as_owner "$PG_BIN/pg_ctl" -D "$data" -l "$BASE/${NODES[$i]}.log" -w start >/dev/null
        fi
    done
    for i in 0 1 2; do
        if [ "$(sql "$i" postgres "SELECT count(*) FROM pg_database WHERE datname = '$DB'")" = 0 ]; then
            sql "$i" postgres "CREATE DATABASE $DB"
        fi
        sql "$i" "$DB" "CREATE EXTENSION IF NOT EXISTS citus"
    done
    sql 0 "$DB" "SELECT citus_set_coordinator_host('localhost', $PORT)" >/dev/null
    for i in 1 2; do
        if [ "$(sql 0 "$DB" "SELECT count(*) FROM pg_dist_node WHERE nodeport = $(port_of "$i")")" = 0 ]; then
            sql 0 "$DB" "SELECT citus_add_node('localhost', $(port_of "$i"))" >/dev/null
        fi
    done
    sql 0 "$DB" "ALTER DATABASE $DB SET citus.enable_schema_based_sharding = on"
    echo "Citus $(sql 0 "$DB" "SELECT extversion FROM pg_extension WHERE extname = 'citus'"): coordinator on port $PORT, \
$(sql 0 "$DB" "SELECT count(*) FROM citus_get_active_worker_nodes()") workers (ports $(port_of 1), $(port_of 2))" >&2
    url
}

stop() {
    for i in 2 1 0; do
        local data="$BASE/${NODES[$i]}"
        if [ -f "$data/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
            as_owner "$PG_BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null
        fi
    done
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    destroy) stop; rm -rf "$BASE" ;;
    url) url ;;
    *) echo "usage: $0 start|stop|destroy|url" >&2; exit 2 ;;
esac
