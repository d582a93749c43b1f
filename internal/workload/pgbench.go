package workload

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

// pgbenchRun is PostgreSQL's own benchmark against a private server (see
// postgres.go): pgbench -i loads the tables before the go-ahead, then
// pgbench -T runs the timed part against a fresh start of the server.
type pgbenchRun struct{}

func init() { Register(pgbenchRun{}) }

func (pgbenchRun) Name() string { return "pgbench" }

func (pgbenchRun) Doc() string {
	return "pgbench against a private PostgreSQL server kdelta starts (unix socket only): tps, latency, the server's counters"
}

func (pgbenchRun) Params() []Param {
	return append([]Param{
		{Name: "scale", Kind: Int, Default: "10", Min: 1, Doc: "pgbench -i -s: 100,000 accounts per unit, loaded before the timed part"},
		{Name: "clients", Kind: Int, Default: "4", Min: 1, Doc: "pgbench -c: client sessions, one server backend each"},
		{Name: "jobs", Kind: Int, Default: "2", Min: 1, Doc: "pgbench -j: client threads, at most clients"},
		{Name: "duration", Kind: Duration, Default: "10s", Doc: "pgbench -T, whole seconds"},
		{Name: "script", Default: "tpcb-like", Choices: []string{"tpcb-like", "simple-update", "select-only"},
			Doc: "pgbench -b: tpcb-like (pgbench's default), simple-update (-N), select-only (-S)"},
		{Name: "protocol", Default: "simple", Choices: []string{"simple", "extended", "prepared"}, Doc: "pgbench -M"},
		{Name: "sampling_rate", Kind: Float, Default: "1",
			Doc: "pgbench --sampling-rate: the share of transactions whose latency is logged, for the percentiles (logging costs the client about 1 µs a transaction)"},
	}, pgServerParams()...)
}

// pgMetrics are the metrics of both PostgreSQL workloads: what tps is
// differs, the latencies are per transaction.
func pgMetrics(tpsDoc string) []result.Metric {
	ms := func(name, doc string) result.Metric {
		return result.Metric{Name: name, Unit: "ms", Better: result.Lower, Doc: doc}
	}
	return []result.Metric{
		{Name: "tps", Unit: "tx/s", Better: result.Higher, Doc: tpsDoc},
		ms("lat_mean", "mean transaction latency"),
		ms("lat_p50", "median transaction latency"),
		ms("lat_p95", "95th percentile transaction latency"),
		ms("lat_p99", "99th percentile transaction latency"),
	}
}

func (pgbenchRun) Metrics() []result.Metric {
	return pgMetrics("transactions per second, pgbench's figure without the initial connection time")
}

func (pgbenchRun) Validate(v Values) error {
	if err := pgDuration(v, "duration"); err != nil {
		return err
	}
	if r := v.Float("sampling_rate"); !(r > 0 && r <= 1) {
		return fmt.Errorf("parameter sampling_rate %q: want a share above 0 and at most 1", v.String("sampling_rate"))
	}
	if v.Int("jobs") > v.Int("clients") {
		return fmt.Errorf("parameter jobs=%d is more than clients=%d (pgbench -j needs a client per thread)", v.Int("jobs"), v.Int("clients"))
	}
	return pgValidate(v, v.Int("clients"), "clients")
}

func (pgbenchRun) Precheck(v Values) string {
	if reason := pgPrecheck(v); reason != "" {
		return reason
	}
	bin, _ := pgBinDir(v.String("bindir"))
	if _, ok := pgClient(bin, "pgbench"); !ok {
		return pgbenchMissing(bin)
	}
	return ""
}

func pgbenchMissing(bin string) string {
	return fmt.Sprintf("pgbench not installed (not in %s or on PATH): install the Debian package %s", bin, pgDebianPackage)
}

// WarmupValues caps a warm-up at 5 s of pgbench: the server is fresh in
// every run, a warm-up only brings the binaries and the page cache in.
func (pgbenchRun) WarmupValues(v Values) Values { return capDuration(v, "duration", 5*time.Second) }

// pgbenchScripts maps the script parameter to pgbench's -b names.
var pgbenchScripts = map[string]string{"tpcb-like": "tpcb-like", "simple-update": "simple-update", "select-only": "select-only"}

// pgbenchLogPrefix is where pgbench writes its per-transaction logs, in
// the server's directory: PREFIX.PID, and PREFIX.PID.N for thread N > 0.
const pgbenchLogPrefix = "pgbench_log"

// pgbenchArgs returns the timed run's arguments; the vacuum pgbench would
// start with is left out (-n), since the load just made the tables.
func pgbenchArgs(v Values, dir string) []string {
	return []string{
		"-n", "-b", pgbenchScripts[v.String("script")], "-M", v.String("protocol"),
		"-c", v.String("clients"), "-j", v.String("jobs"),
		"-T", strconv.Itoa(int(v.Duration("duration") / time.Second)),
		"--log", "--log-prefix=" + filepath.Join(dir, pgbenchLogPrefix), "--sampling-rate=" + v.String("sampling_rate"),
		"-h", dir, "-p", pgPort, "-U", pgDBUser, pgDB,
	}
}

func (pgbenchRun) Run(t *Task) error {
	v := t.Params
	if err := (pgbenchRun{}).Validate(v); err != nil {
		return err
	}
	s, err := newPGServer(v)
	if err != nil {
		return err
	}
	defer s.close()
	pgbench, ok := pgClient(s.bin, "pgbench")
	if !ok {
		return Skip("%s", pgbenchMissing(s.bin))
	}
	ctx := context.Background()

	load := []string{"-i", "-q", "-s", v.String("scale"), "-h", s.dir, "-p", pgPort, "-U", pgDBUser, pgDB}
	out, err := s.session(ctx, t, pgbench, "pgbench -i", load, pgbenchArgs(v, s.dir))
	if err != nil {
		return err
	}

	sum, err := parsePgbench(out)
	if err != nil {
		t.Info("output_tail", lastBytes(out, outputTail))
		return fmt.Errorf("pgbench output: %w; last output:\n%s", err, lastLines(out, errorLines))
	}
	if sum.Version != "" {
		t.Info("pgbench_version", sum.Version)
	}
	t.Info("pgbench_latency_average_ms", strconv.FormatFloat(sum.LatencyAvg, 'f', -1, 64))
	lat, other, err := readPgbenchLogs(s.dir)
	if err != nil {
		return err
	}
	if len(lat) == 0 {
		return fmt.Errorf("pgbench logged no transaction; last output:\n%s", lastLines(out, errorLines))
	}
	t.SetOps(sum.Transactions)
	t.Count("transactions", sum.Transactions)
	t.Count("failed", sum.Failed+float64(other))
	t.Set("tps", sum.TPS)
	setLatencies(t, lat)
	return nil
}

// setLatencies records the per-transaction latencies (ms) and their
// metrics.
func setLatencies(t *Task, lat []float64) {
	t.Latencies("ms", lat)
	sort.Float64s(lat)
	t.Set("lat_mean", t.Report.Latency.Mean)
	t.Set("lat_p50", Percentile(lat, 50))
	t.Set("lat_p95", Percentile(lat, 95))
	t.Set("lat_p99", Percentile(lat, 99))
}

// A pgbenchSummary is what pgbench prints at the end of a run.
type pgbenchSummary struct {
	Version      string  // "15.18 (Debian 15.18-0+deb12u1)"
	TPS          float64 // without the initial connection time
	Transactions float64 // actually processed
	Failed       float64 // PostgreSQL 15 on; 0 before
	LatencyAvg   float64 // ms
}

// parsePgbench reads pgbench's summary. pgbench 14 on prints "tps = N
// (without initial connection time)"; earlier ones print "tps = N
// (including connections establishing)" and "(excluding ...)": the
// figure without the connections is taken.
func parsePgbench(out string) (pgbenchSummary, error) {
	var s pgbenchSummary
	var haveTPS, haveTx bool
	num := func(text string) (float64, error) {
		f := strings.Fields(text)
		if len(f) == 0 {
			return 0, fmt.Errorf("no number in %q", text)
		}
		return strconv.ParseFloat(strings.SplitN(f[0], "/", 2)[0], 64)
	}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		var err error
		switch {
		case strings.HasPrefix(line, "pgbench (") && strings.HasSuffix(line, ")"):
			s.Version = strings.TrimSuffix(strings.TrimPrefix(line, "pgbench ("), ")")
		case strings.HasPrefix(line, "tps = "):
			if strings.Contains(line, "including connections") {
				continue
			}
			s.TPS, err = num(strings.TrimPrefix(line, "tps = "))
			haveTPS = true
		case strings.HasPrefix(line, "number of transactions actually processed:"):
			s.Transactions, err = num(strings.TrimPrefix(line, "number of transactions actually processed:"))
			haveTx = true
		case strings.HasPrefix(line, "number of failed transactions:"):
			s.Failed, err = num(strings.TrimPrefix(line, "number of failed transactions:"))
		case strings.HasPrefix(line, "latency average = "):
			s.LatencyAvg, err = num(strings.TrimPrefix(line, "latency average = "))
		}
		if err != nil {
			return s, fmt.Errorf("line %q: %w", line, err)
		}
	}
	switch {
	case !haveTPS:
		return s, errors.New("no tps line")
	case !haveTx:
		return s, errors.New("no line of transactions processed")
	}
	return s, nil
}

// readPgbenchLogs reads every per-transaction log pgbench wrote in dir
// and returns the latencies in ms, and how many lines held none (failed
// or skipped transactions).
func readPgbenchLogs(dir string) ([]float64, int, error) {
	files, err := filepath.Glob(filepath.Join(dir, pgbenchLogPrefix+".*"))
	if err != nil {
		return nil, 0, err
	}
	var lat []float64
	other := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, 0, err
		}
		var n int
		lat, n, err = readPgbenchLog(f, lat)
		f.Close()
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", filepath.Base(name), err)
		}
		other += n
	}
	return lat, other, nil
}

// readPgbenchLog appends to lat the latency in ms of every transaction of
// one pgbench --log file, whose lines are "client_id transaction_no time
// script_no time_epoch time_us [schedule_lag retries]" with time in µs,
// or "failed" or "skipped" in its place; it returns lat and how many
// lines held no latency.
func readPgbenchLog(r io.Reader, lat []float64) ([]float64, int, error) {
	sc := bufio.NewScanner(r)
	other, line := 0, 0
	for sc.Scan() {
		line++
		// Fields by hand: the child runs without a garbage collector,
		// and a log holds a line per transaction.
		b := sc.Bytes()
		var field [6][]byte
		n := 0
		for i := 0; i < len(b) && n < len(field); {
			for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
				i++
			}
			j := i
			for j < len(b) && b[j] != ' ' && b[j] != '\t' {
				j++
			}
			if j > i {
				field[n] = b[i:j]
				n++
			}
			i = j
		}
		if n < len(field) {
			return lat, other, fmt.Errorf("line %d: %q is not a transaction (want 6 fields or more)", line, b)
		}
		us, ok := parseUint(field[2])
		if !ok {
			if bytes.Equal(field[2], []byte("failed")) || bytes.Equal(field[2], []byte("skipped")) {
				other++
				continue
			}
			return lat, other, fmt.Errorf("line %d: latency %q is not a number of microseconds", line, field[2])
		}
		lat = append(lat, float64(us)/1000)
	}
	return lat, other, sc.Err()
}

// parseUint reads a decimal number without allocating.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}
