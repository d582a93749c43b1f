#!/usr/bin/env bash
# kdelta serve and the HTML report at scale: a store of 10,000 result sets
# over 1,000 kernel builds, its results page and the 1,000-build history
# under 50 concurrent loopback clients (1,000 requests a page, then it
# stops), median and p99 beside the server's smallest answer (a 404) under
# the same load; then the HTML comparison of two sets of 100,000
# per-operation samples: time to write and size.
#
#   ./bench/web.sh [-sets N] [-builds N] [-clients N] [-requests N] [-samples N]
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/web "$@"
