#!/usr/bin/env bash
# Dispatch overhead of the lab: N no-op jobs (kdelta submit -- noop, which
# an agent completes at once in the transaction of River's completion)
# over A agent processes on a throwaway PostgreSQL (scripts/postgres.sh).
# It prints, from the lab_attempts rows the agents write, the median and
# p99 of claim -> start (River's fetch to the worker starting) and finish
# -> next claim (an agent's completion to its next fetch), and the jobs/s
# reached over the whole batch, and how busy the machine's CPUs were.
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
# CPU time of the whole machine (user+nice+system+irq+softirq, and idle)
# over the agents' run, from /proc/stat: what the dispatch spends.
cpu() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat; }
read -r busy0 idle0 < <(cpu)
start=$(date +%s.%N)
pids=()
for i in $(seq 1 "$agents"); do
	"$k" agent --store "$url" --name "bench-$i" --labels bench=1 --once 2>"$dir/agent-$i.log" &
	pids+=($!)
done
wait "${pids[@]}"
end=$(date +%s.%N)
read -r busy1 idle1 < <(cpu)
done=$(psql "$url" -Atc "SELECT COUNT(*) FROM river_job WHERE state = 'completed'")
echo "$done of $jobs jobs completed by $agents agents in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s (agent start to last exit)"
busy=$(awk "BEGIN { printf \"%.0f\", 100 * ($busy1 - $busy0) / ($busy1 - $busy0 + $idle1 - $idle0) }")
echo "CPUs busy over it: $busy% of $(nproc)"
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
# The closing note: what limited the rate. Each no-op job costs its agent
# River's claim (a fetch with FOR UPDATE SKIP LOCKED), two heartbeat
# writes (job started, job done) and the completion transaction
# (JobCompleteTx with the attempt's row), about eight round trips.
if ((busy >= 90)); then
	echo "limit: the CPUs ($(nproc)) were saturated by $agents agent processes and PostgreSQL's backends; dispatch here is CPU-bound, and each job's ~8 round trips (claim, 2 heartbeats, the completion transaction) set its cost"
else
	echo "limit: the CPUs were not saturated ($busy%): each job's ~8 round trips to PostgreSQL (claim, 2 heartbeats, the completion transaction) and River's fetch cooldown (5 ms) between an agent's jobs set the rate"
fi
