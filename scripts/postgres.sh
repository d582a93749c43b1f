#!/usr/bin/env bash
# Starts a throwaway PostgreSQL for the store tests and prints where it is:
#
#   eval "$(./scripts/postgres.sh)"      # sets KDELTA_TEST_POSTGRES and KDELTA_TEST_POSTGRES_DIR
#   go test ./internal/store/ ./internal/cli/
#   ./scripts/postgres.sh stop           # stops it and removes its files
#
# It installs postgresql with apt-get when its binaries are missing (as
# root), makes a cluster in a temporary directory with initdb, owned by the
# postgres user when run as root (initdb refuses root), starts it on
# 127.0.0.1 on a free port with its socket in the same directory, so it
# touches no system cluster, and creates the database kdelta_test. Only the
# export lines go to stdout; progress goes to stderr.
set -euo pipefail

log() { printf 'postgres.sh: %s\n' "$*" >&2; }

# as runs a command as the cluster's owner.
as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then
		echo "$d"
	fi
}

if [ "${1:-}" = stop ]; then
	dir=${KDELTA_TEST_POSTGRES_DIR:-${2:-}}
	if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
		log "stop: no cluster (set KDELTA_TEST_POSTGRES_DIR or give its directory)"
		exit 2
	fi
	bin=$(bindir)
	as "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
	rm -rf "$dir"
	log "stopped and removed $dir"
	exit 0
fi

bin=$(bindir)
if [ -z "$bin" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		log "PostgreSQL is not installed: run as root so it can be installed"
		exit 2
	fi
	log "installing postgresql"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null 2>&1; then
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
	fi
	bin=$(bindir)
	if [ -z "$bin" ]; then
		log "postgresql installed but no initdb under /usr/lib/postgresql/*/bin"
		exit 1
	fi
fi

dir=$(mktemp -d /tmp/kdelta-pg.XXXXXX)
chmod 755 "$dir"
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$dir"
fi

# A port nothing listens on: bash's /dev/tcp fails to connect to it.
port=""
for _ in $(seq 1 200); do
	p=$((20000 + RANDOM % 40000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		port=$p
		break
	fi
done
if [ -z "$port" ]; then
	log "no free port found"
	exit 1
fi

log "initdb in $dir/data ($bin)"
as "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
# fsync off: the cluster is thrown away, and the tests run faster.
as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
	-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off" start >&2 ||
	{ cat "$dir/server.log" >&2; exit 1; }
as "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres kdelta_test >&2

log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
echo "export KDELTA_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/kdelta_test?sslmode=disable"
echo "export KDELTA_TEST_POSTGRES_DIR=$dir"
