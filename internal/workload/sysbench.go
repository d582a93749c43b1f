package workload

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

// sysbenchRun is sysbench's OLTP tests against a private PostgreSQL
// server (see postgres.go), the "postgres sysbench" of seed mail 003:
// sysbench prepare loads the tables before the go-ahead, sysbench run is
// the timed part against a fresh start of the server.
type sysbenchRun struct{}

func init() { Register(sysbenchRun{}) }

func (sysbenchRun) Name() string { return "sysbench" }

func (sysbenchRun) Doc() string {
	return "sysbench OLTP (read_only, read_write, point_select) against a private PostgreSQL server: tps, latency, the server's counters"
}

func (sysbenchRun) Params() []Param {
	return append([]Param{
		{Name: "test", Default: "read_only", Choices: []string{"read_only", "read_write", "point_select"},
			Doc: "sysbench's oltp_read_only, oltp_read_write or oltp_point_select"},
		{Name: "threads", Kind: Int, Default: "4", Min: 1, Doc: "sysbench --threads: client threads, one server backend each"},
		{Name: "duration", Kind: Duration, Default: "10s", Doc: "sysbench --time, whole seconds"},
		{Name: "tables", Kind: Int, Default: "4", Min: 1, Doc: "sysbench --tables, loaded before the timed part"},
		{Name: "table_size", Kind: Int, Default: "10000", Min: 1, Doc: "sysbench --table-size: rows per table"},
	}, pgServerParams()...)
}

func (sysbenchRun) Metrics() []result.Metric {
	return pgMetrics("transactions per second, sysbench's figure")
}

func (sysbenchRun) Validate(v Values) error {
	if err := pgDuration(v, "duration"); err != nil {
		return err
	}
	return pgValidate(v, v.Int("threads"), "threads")
}

func (sysbenchRun) Precheck(v Values) string {
	if reason := pgPrecheck(v); reason != "" {
		return reason
	}
	_, reason := sysbenchPath()
	return reason
}

// WarmupValues caps a warm-up at 5 s, as pgbench's.
func (sysbenchRun) WarmupValues(v Values) Values { return capDuration(v, "duration", 5*time.Second) }

// sysbenchPath finds sysbench with its PostgreSQL driver, or says why not.
func sysbenchPath() (string, string) {
	p, err := exec.LookPath("sysbench")
	if err != nil {
		return "", "sysbench not installed: install the Debian package sysbench"
	}
	out, _ := exec.Command(p, "--help").CombinedOutput()
	if !strings.Contains(string(out), "pgsql - PostgreSQL driver") {
		return "", fmt.Sprintf("%s was built without the PostgreSQL driver (its --help lists no pgsql): install the Debian package sysbench", p)
	}
	return p, ""
}

// sysbenchArgs returns sysbench's arguments for command (prepare, run)
// against the server in dir.
func sysbenchArgs(v Values, dir, command string) []string {
	args := []string{
		"oltp_" + v.String("test"), "--db-driver=pgsql",
		"--pgsql-host=" + dir, "--pgsql-port=" + pgPort, "--pgsql-user=" + pgDBUser, "--pgsql-db=" + pgDB,
		"--tables=" + v.String("tables"), "--table-size=" + v.String("table_size"),
	}
	if command == "run" {
		args = append(args, "--threads="+v.String("threads"),
			"--time="+strconv.Itoa(int(v.Duration("duration")/time.Second)),
			"--histogram=on", "--percentile=99")
	}
	return append(args, command)
}

func (sysbenchRun) Run(t *Task) error {
	v := t.Params
	if err := (sysbenchRun{}).Validate(v); err != nil {
		return err
	}
	sb, reason := sysbenchPath()
	if reason != "" {
		return Skip("%s", reason)
	}
	s, err := newPGServer(v)
	if err != nil {
		return err
	}
	defer s.close()
	ctx := context.Background()

	out, err := s.session(ctx, t, sb, "sysbench prepare", sysbenchArgs(v, s.dir, "prepare"), sysbenchArgs(v, s.dir, "run"))
	if err != nil {
		return err
	}

	r, err := parseSysbench(out)
	if err != nil {
		t.Info("output_tail", lastBytes(out, outputTail))
		return fmt.Errorf("sysbench output: %w; last output:\n%s", err, lastLines(out, errorLines))
	}
	if r.Version != "" {
		t.Info("sysbench_version", r.Version)
	}
	t.Info("sysbench_p99_ms", strconv.FormatFloat(r.P99, 'f', -1, 64))
	t.SetOps(r.Transactions)
	t.Count("transactions", r.Transactions)
	t.Count("queries", r.Queries)
	t.Count("errors", r.Errors)
	t.Set("tps", r.TPS)
	t.Set("lat_mean", r.LatencySum/r.Events)
	t.Set("lat_p50", r.Hist.percentile(50))
	t.Set("lat_p95", r.Hist.percentile(95))
	t.Set("lat_p99", r.Hist.percentile(99))
	t.Report.Latency = r.Hist.summary(r.Min, r.Max, r.LatencySum/r.Events)
	return nil
}

// A sysbenchReport is what sysbench run prints.
type sysbenchReport struct {
	Version      string
	Transactions float64
	TPS          float64
	Queries      float64
	Errors       float64 // ignored errors
	Events       float64 // total number of events
	Min, Max     float64 // ms
	LatencySum   float64 // ms
	P99          float64 // ms, sysbench's own --percentile=99
	Hist         sysbenchHist
}

// A sysbenchHist is sysbench's latency histogram: bucket values in ms,
// ascending, and their counts.
type sysbenchHist struct {
	value []float64
	count []float64
}

// percentile returns the value of the first bucket at which the count
// reaches p percent of the total, as sysbench takes its own percentile
// (sb_histogram_getpct).
func (h sysbenchHist) percentile(p float64) float64 {
	total := 0.0
	for _, c := range h.count {
		total += c
	}
	want := total * p / 100
	sum := 0.0
	for i, c := range h.count {
		sum += c
		if sum >= want {
			return h.value[i]
		}
	}
	return h.value[len(h.value)-1]
}

// summary is the per-operation summary of a run, from sysbench's exact
// figures (min, max, mean) and the histogram's percentiles.
func (h sysbenchHist) summary(min, max, mean float64) *result.Latency {
	n := 0.0
	for _, c := range h.count {
		n += c
	}
	return &result.Latency{Unit: "ms", Count: int(n), Mean: mean, Min: min, Max: max,
		P50: h.percentile(50), P90: h.percentile(90), P99: h.percentile(99)}
}

// parseSysbench reads sysbench 1.0's report of an OLTP run with
// --histogram: the "SQL statistics", "General statistics" and "Latency
// (ms)" sections, and the histogram's "value |*** count" lines.
func parseSysbench(out string) (sysbenchReport, error) {
	var r sysbenchReport
	have := map[string]bool{}
	// first returns the first number of text, before any "(".
	first := func(text string) (float64, error) {
		f := strings.Fields(strings.SplitN(text, "(", 2)[0])
		if len(f) == 0 {
			return 0, fmt.Errorf("no number in %q", text)
		}
		return strconv.ParseFloat(strings.TrimSuffix(f[0], "s"), 64)
	}
	section := ""
	for _, line := range strings.Split(out, "\n") {
		trim := strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(trim, "sysbench "); ok && r.Version == "" {
			r.Version = strings.Fields(v)[0]
			continue
		}
		if val, bars, ok := strings.Cut(trim, "|"); ok && section == "histogram" {
			f := strings.Fields(strings.TrimLeft(bars, "*"))
			x, err1 := strconv.ParseFloat(strings.TrimSpace(val), 64)
			if len(f) != 1 {
				return r, fmt.Errorf("histogram line %q: want value |*** count", trim)
			}
			c, err2 := strconv.ParseFloat(f[0], 64)
			if err := errors.Join(err1, err2); err != nil {
				return r, fmt.Errorf("histogram line %q: %w", trim, err)
			}
			// Buckets below 0.01 ms print alike with three decimals.
			if n := len(r.Hist.value); n > 0 && x < r.Hist.value[n-1] {
				return r, fmt.Errorf("histogram line %q: values not ascending", trim)
			}
			r.Hist.value = append(r.Hist.value, x)
			r.Hist.count = append(r.Hist.count, c)
			continue
		}
		key, val, ok := strings.Cut(trim, ":")
		switch {
		case strings.HasPrefix(trim, "Latency histogram"):
			section = "histogram"
			continue
		case trim == "Latency (ms):":
			section = "latency"
			continue
		case trim == "SQL statistics:" || trim == "General statistics:" || trim == "Threads fairness:":
			section = trim
			continue
		case !ok || strings.TrimSpace(val) == "":
			continue
		}
		var into *float64
		switch {
		case key == "transactions":
			into = &r.Transactions
			// "transactions: 11601 (3862.05 per sec.)"
			if _, rate, ok := strings.Cut(val, "("); ok {
				tps, err := first(rate)
				if err != nil {
					return r, fmt.Errorf("line %q: %w", trim, err)
				}
				r.TPS = tps
				have["tps"] = true
			}
		case key == "queries" && section == "SQL statistics:":
			into = &r.Queries
		case key == "ignored errors":
			into = &r.Errors
		case key == "total number of events":
			into = &r.Events
		case section == "latency" && key == "min":
			into = &r.Min
		case section == "latency" && key == "max":
			into = &r.Max
		case section == "latency" && key == "sum":
			into = &r.LatencySum
		case section == "latency" && key == "99th percentile":
			into = &r.P99
		default:
			continue
		}
		x, err := first(val)
		if err != nil {
			return r, fmt.Errorf("line %q: %w", trim, err)
		}
		*into = x
		have[key] = true
	}
	for _, k := range []string{"transactions", "tps", "total number of events", "sum"} {
		if !have[k] {
			return r, fmt.Errorf("no %q figure", k)
		}
	}
	if r.Events == 0 {
		return r, errors.New("no transaction ran (0 events)")
	}
	if len(r.Hist.value) == 0 {
		return r, errors.New("no latency histogram (--histogram)")
	}
	return r, nil
}
