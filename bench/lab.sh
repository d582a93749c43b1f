#!/usr/bin/env bash
# Dispatch overhead of the lab: N no-op jobs (kdelta submit -- noop, which
# an agent completes at once in the transaction of River's completion)
# over A agent processes on a throwaway PostgreSQL (scripts/postgres.sh).
# It prints, from the lab_attempts rows the agents write, the median and
# p99 of claim -> start (River's fetch to the worker starting) and finish
# -> next claim (an agent's completion to its next fetch), and the jobs/s
# reached over the whole batch.
#
#   ./bench/lab.sh [jobs] [agents]        (default 1000 jobs, 20 agents)
#
# Needs PostgreSQL (Debian package postgresql), as root to install it.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-1000}
agents=${2:-20}
if ((jobs % agents)); then
	echo "lab.sh: jobs ($jobs) must be a multiple of agents ($agents)" >&2
	exit 2
fi
dir=$(mktemp -d)
eval "$(./scripts/postgres.sh)"
trap './scripts/postgres.sh stop >/dev/null 2>&1; rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/kdelta" ./cmd/kdelta
k="$dir/kdelta"
url=$KDELTA_TEST_POSTGRES
"$k" lab init --store "$url" >/dev/null
export XDG_STATE_HOME=$dir/state
# Each agent registers (its heartbeat), so that --each fans a job out to
# all of them; then every job is queued before any agent runs.
for i in $(seq 1 "$agents"); do
	"$k" agent --store "$url" --name "bench-$i" --labels bench=1 --once 2>/dev/null
done
for _ in $(seq 1 $((jobs / agents))); do
	"$k" submit --store "$url" --each bench=1 -- noop >/dev/null
done
start=$(date +%s.%N)
pids=()
for i in $(seq 1 "$agents"); do
	"$k" agent --store "$url" --name "bench-$i" --labels bench=1 --once 2>"$dir/agent-$i.log" &
	pids+=($!)
done
wait "${pids[@]}"
end=$(date +%s.%N)
done=$(psql "$url" -Atc "SELECT COUNT(*) FROM river_job WHERE state = 'completed'")
echo "$done of $jobs jobs completed by $agents agents in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s (agent start to last exit)"
psql "$url" -At -F ' ' <<'SQL'
WITH a AS (
	SELECT agent, claimed, started, finished,
		lead(claimed) OVER (PARTITION BY agent ORDER BY claimed) AS next
	FROM lab_attempts
)
SELECT 'claim -> start (ms): median', round((percentile_cont(0.5) WITHIN GROUP (ORDER BY (started - claimed) / 1e6))::numeric, 2),
	'p99', round((percentile_cont(0.99) WITHIN GROUP (ORDER BY (started - claimed) / 1e6))::numeric, 2)
FROM a
UNION ALL
SELECT 'finish -> next claim (ms): median', round((percentile_cont(0.5) WITHIN GROUP (ORDER BY (next - finished) / 1e6))::numeric, 2),
	'p99', round((percentile_cont(0.99) WITHIN GROUP (ORDER BY (next - finished) / 1e6))::numeric, 2)
FROM a WHERE next IS NOT NULL
UNION ALL
SELECT 'jobs/s from first claim to last finish:', round((COUNT(*) / ((MAX(finished) - MIN(claimed)) / 1e9))::numeric, 1), '', NULL
FROM a;
SQL
