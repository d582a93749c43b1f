package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/testenv"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// kd runs the command line in process and returns its exit status,
// stdout and stderr.
func kd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// ownStore points the default store of in-process commands at a new
// directory and returns the store's path.
func ownStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	return filepath.Join(dir, "kdelta", "kdelta.db")
}

// fakeSet is a stored result set of one workload with runs around centre
// at CV cv, from a fixed seed.
func fakeSet(id string, created time.Time, labels map[string]string, workload string, m result.Metric, runs int, centre, cv float64, seed uint64) *result.Set {
	rng := rand.New(rand.NewPCG(seed, 42))
	b := &result.Benchmark{Workload: workload, Params: map[string]string{"mode": "self"}, Metrics: []result.Metric{m}}
	for i := 0; i < runs; i++ {
		b.Runs = append(b.Runs, &result.Run{Index: i, Start: created.Add(time.Duration(i) * time.Second), Status: result.StatusOK,
			Values: map[string]float64{m.Name: centre * (1 + cv*rng.NormFloat64())}})
	}
	return &result.Set{Schema: result.Schema, ID: id, Created: created, Tool: "kdelta test", Labels: labels,
		Benchmarks: []*result.Benchmark{b}, Complete: true}
}

var (
	bogo = result.Metric{Name: "bogo-ops/s", Unit: "bogo-ops/s", Better: result.Higher}
	day0 = time.Date(2026, 7, 27, 9, 0, 0, 0, time.UTC)
)

// elnStore fills the store at path with seed mail 000's ELN builds: kill
// results, 10 runs per build at CV 1% around 103,207 (6.15-rc6), 70,281
// (6.16) and 72,552 (6.18) bogo-ops/s, labelled kernel=..., recorded out
// of version order, with a second 6.16 session.
func elnStore(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sets := []*result.Set{
		fakeSet("20260727T090000-0a0a0a0a0a01", day0, map[string]string{"kernel": "6.16", "host": "p10"}, "kill", bogo, 5, 70281, 0.01, 1),
		fakeSet("20260727T100000-0b0b0b0b0b02", day0.Add(time.Hour), map[string]string{"kernel": "6.18", "host": "p10"}, "kill", bogo, 10, 72552, 0.01, 2),
		fakeSet("20260727T110000-0c0c0c0c0c03", day0.Add(2*time.Hour), map[string]string{"kernel": "6.15-rc6", "host": "p10"}, "kill", bogo, 10, 103207, 0.01, 3),
		fakeSet("20260727T120000-0d0d0d0d0d04", day0.Add(3*time.Hour), map[string]string{"kernel": "6.16", "host": "p10"}, "kill", bogo, 5, 70281, 0.01, 4),
	}
	for _, s := range sets {
		if err := st.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHistoryGolden(t *testing.T) {
	path := ownStore(t)
	elnStore(t, path)
	tests := []struct {
		name string
		args []string
	}{
		{"text", []string{"history", "--by", "kernel", "--workload", "kill", "--metric", "bogo-ops/s"}},
		{"markdown", []string{"history", "--by", "kernel", "--workload", "kill", "--format", "markdown"}},
		{"csv", []string{"history", "--by", "kernel", "--workload", "kill:mode=self", "--format", "csv"}},
		{"json", []string{"history", "--by", "kernel", "--workload", "kill", "--format", "json"}},
		{"time", []string{"history", "--by", "time", "--workload", "kill", "--label", "host=p10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := kd(t, tt.args...)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			if !golden.Check(t, "history-"+tt.name+".golden", []byte(out)) {
				t.Logf("kdelta %s printed:\n%s", strings.Join(tt.args, " "), out)
			}
		})
	}
	// The story of seed mail 000: one change point, at 6.16, of about −32%.
	_, out, _ := kd(t, "history", "--by", "kernel", "--workload", "kill")
	if n := strings.Count(out, "<< step"); n != 1 {
		t.Errorf("%d change points, want 1:\n%s", n, out)
	}
	if !regexp.MustCompile(`(?m)^  6\.16 +10 +70,\d{3} +-3[0-9]\.\d% +<< step \(p<0\.001\) regressed$`).MatchString(out) {
		t.Errorf("no step of about -32%% at 6.16:\n%s", out)
	}
}

func TestHistoryErrors(t *testing.T) {
	path := ownStore(t)
	elnStore(t, path)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"history", "--workload", "kill"}, `--by: name a label`},
		{[]string{"history", "--by", "kernel"}, `--workload: name one (kill)`},
		{[]string{"history", "--by", "kernel", "--workload", "pipe"}, `no measured runs of pipe in ` + path + ` (stored workloads: kill)`},
		{[]string{"history", "--by", "kernel", "--workload", "kill", "--metric", "calls/s"}, `no measured runs of kill calls/s`},
		{[]string{"history", "--by", "kernel", "--workload", "kill:mode", "--format", "text"}, `--workload: "mode" in "kill:mode" is not key=value`},
		{[]string{"history", "--by", "kernel", "--workload", "kill", "--format", "html5"}, `--format: unknown format "html5"`},
		{[]string{"history", "--by", "kernel", "--workload", "kill", "--alpha", "2"}, `alpha 2 is not in (0, 1)`},
		{[]string{"history", "--by", "kernel", "--workload", "kill", "--min-change", "x"}, `--min-change: bad value "x"`},
		{[]string{"history", "--by", "kernel", "--workload", "kill", "--store", filepath.Join(t.TempDir(), "none.db")}, `no store at`},
	}
	for _, tt := range tests {
		code, _, errs := kd(t, tt.args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("kdelta %v: exit %d, stderr %q; want exit 2 and one line containing %q", tt.args, code, errs, tt.want)
		}
	}
	// Sets without the label are left out, and said so.
	st, _ := store.Open(context.Background(), path)
	st.Save(context.Background(), fakeSet("20260727T130000-0e0e0e0e0e05", day0.Add(4*time.Hour), map[string]string{"host": "p10"}, "kill", bogo, 3, 1, 0.01, 5))
	st.Close()
	code, _, errs := kd(t, "history", "--by", "kernel", "--workload", "kill")
	if code != 0 || !strings.Contains(errs, "kill:mode=self: 1 result sets without label kernel left out") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestResultsCommands(t *testing.T) {
	path := ownStore(t)
	elnStore(t, path)
	// ls: all, by label, by workload, as JSON.
	code, out, errs := kd(t, "results", "ls")
	if code != 0 || errs != "" {
		t.Fatalf("results ls: exit %d: %s", code, errs)
	}
	wantLs := `ID                            CREATED (UTC)        KERNEL    RUNS  WORKLOADS  LABELS
20260727T090000-0a0a0a0a0a01  2026-07-27 09:00:00  6.16      5     kill       host=p10 kernel=6.16
20260727T100000-0b0b0b0b0b02  2026-07-27 10:00:00  6.18      10    kill       host=p10 kernel=6.18
20260727T110000-0c0c0c0c0c03  2026-07-27 11:00:00  6.15-rc6  10    kill       host=p10 kernel=6.15-rc6
20260727T120000-0d0d0d0d0d04  2026-07-27 12:00:00  6.16      5     kill       host=p10 kernel=6.16
`
	if out != wantLs {
		t.Errorf("results ls:\n%s\nwant:\n%s", out, wantLs)
	}
	_, out, _ = kd(t, "results", "ls", "--label", "kernel=6.16")
	if strings.Count(out, "\n") != 3 || !strings.Contains(out, "0a01") || !strings.Contains(out, "0d04") {
		t.Errorf("results ls --label kernel=6.16:\n%s", out)
	}
	if _, out, _ = kd(t, "results", "ls", "--workload", "pipe"); strings.Count(out, "\n") != 1 {
		t.Errorf("results ls --workload pipe:\n%s", out)
	}
	_, out, _ = kd(t, "results", "ls", "--json", "--label", "kernel=6.18")
	var ls []struct {
		ID        string
		Runs      int
		Workloads []string
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil || len(ls) != 1 || ls[0].Runs != 10 || ls[0].Workloads[0] != "kill" {
		t.Errorf("results ls --json: %v %+v\n%s", err, ls, out)
	}

	// show by unique prefix and by label query.
	for _, ref := range []string{"20260727T10", "kernel=6.18", "kernel=6.18,host=p10"} {
		code, out, errs = kd(t, "results", "show", ref)
		if code != 0 || !strings.Contains(out, "kdelta result 20260727T100000-0b0b0b0b0b02 (host=p10 kernel=6.18)") {
			t.Errorf("results show %s: exit %d: %s%s", ref, code, out, errs)
		}
	}

	// tag sets and removes labels.
	code, out, _ = kd(t, "results", "tag", "20260727T12", "preempt=lazy", "host=")
	if code != 0 || out != "20260727T120000-0d0d0d0d0d04 kernel=6.16 preempt=lazy\n" {
		t.Errorf("results tag: exit %d: %q", code, out)
	}
	if _, out, _ = kd(t, "results", "ls", "--label", "preempt=lazy"); !strings.Contains(out, "0d04") {
		t.Errorf("tagged set not found by its new label:\n%s", out)
	}

	// export writes the set as kdelta wrote it.
	file := filepath.Join(t.TempDir(), "x.json")
	if code, _, errs = kd(t, "results", "export", "kernel=6.15-rc6", "-o", file); code != 0 {
		t.Fatalf("results export: %s", errs)
	}
	got, err := result.Load(file)
	if err != nil || got.ID != "20260727T110000-0c0c0c0c0c03" || len(got.Benchmarks[0].Runs) != 10 {
		t.Errorf("exported set: %v %+v", err, got)
	}
	// ... which compares with a stored set named by its labels: two
	// imports, one session each, judged under the prior session noise
	// (imports: no host), which the verdict names.
	code, out, errs = kd(t, "compare", file, "kernel=6.18")
	if code != 0 || !strings.Contains(out, "assumed for a machine of unknown kind") {
		t.Errorf("compare file kernel=6.18: exit %d\n%s%s", code, out, errs)
	}

	// rm refuses to ask without a terminal, removes with --yes.
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	stdin := os.Stdin
	os.Stdin = devnull
	code, _, errs = kd(t, "results", "rm", "20260727T09")
	os.Stdin = stdin
	if code != 2 || !strings.Contains(errs, "not a terminal to ask on: pass --yes") {
		t.Errorf("results rm without a terminal: exit %d: %q", code, errs)
	}
	if code, out, _ = kd(t, "results", "rm", "--yes", "20260727T09", "kernel=6.18"); code != 0 ||
		out != "removed 20260727T090000-0a0a0a0a0a01\nremoved 20260727T100000-0b0b0b0b0b02\n" {
		t.Errorf("results rm --yes: exit %d: %q", code, out)
	}
	// A bad name removes nothing, even after good ones.
	if code, _, _ = kd(t, "results", "rm", "--yes", "kernel=6.15-rc6", "nosuch"); code != 2 {
		t.Errorf("results rm with a bad name: exit %d", code)
	}
	if _, out, _ = kd(t, "results", "ls"); strings.Count(out, "\n") != 3 {
		t.Errorf("after rm:\n%s", out)
	}
}

// TestResultsRmAsks answers the question of results rm on a terminal, made
// by script(1).
func TestResultsRmAsks(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		testenv.Skip(t, "script (util-linux) not installed: no terminal to answer on")
	}
	path := ownStore(t)
	elnStore(t, path)
	bin := kdeltaBinary(t)
	for _, tt := range []struct {
		answer, want string
	}{
		{"n\n", "kept 20260727T100000-0b0b0b0b0b02"},
		{"y\n", "removed 20260727T100000-0b0b0b0b0b02"},
	} {
		cmd := exec.Command("script", "-qec", bin+" results rm --store "+path+" 20260727T10", "/dev/null")
		cmd.Stdin = strings.NewReader(tt.answer)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("script: %v: %s", err, out)
		}
		if !strings.Contains(string(out), "remove 20260727T100000-0b0b0b0b0b02 (2026-07-27 10:00Z host=p10 kernel=6.18, 10 runs)? [y/N]") ||
			!strings.Contains(string(out), tt.want) {
			t.Errorf("answer %q: %s", tt.answer, out)
		}
	}
	if _, out, _ := kd(t, "results", "ls", "--label", "kernel=6.18"); strings.Count(out, "\n") != 1 {
		t.Errorf("the set is still there:\n%s", out)
	}
}

// TestResolveErrors checks the names of result sets that cannot be
// resolved: one line, exit 2, and the candidates when there are several.
func TestResolveErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	// Before any store exists, nothing is created by looking.
	code, _, errs := kd(t, "compare", "kernel=6.15", "kernel=6.16")
	if code != 2 || !strings.Contains(errs, "kernel=6.15: no store at "+filepath.Join(dir, "kdelta", "kdelta.db")+" yet") {
		t.Errorf("no store: exit %d: %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "kdelta")); err == nil {
		t.Errorf("looking up a name created the store")
	}
	elnStore(t, filepath.Join(dir, "kdelta", "kdelta.db"))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"compare", "kernel=6.17", "kernel=6.18"}, "kernel=6.17: no result set in " + dir + "/kdelta/kdelta.db carries these labels; stored kernel values: 6.15-rc6, 6.16, 6.18"},
		{[]string{"compare", "kernel=6.18,arch=s390x", "kernel=6.18"}, "carries these labels; stored kernel values: 6.15-rc6, 6.16, 6.18; no stored set has the label arch"},
		{[]string{"results", "show", "kernel=6.16"}, "kernel=6.16: 2 result sets in " + dir + "/kdelta/kdelta.db match, name one (an id, or more labels): " +
			"20260727T120000-0d0d0d0d0d04 (2026-07-27 12:00Z host=p10 kernel=6.16); 20260727T090000-0a0a0a0a0a01 (2026-07-27 09:00Z host=p10 kernel=6.16)"},
		{[]string{"compare", "20260727T1", "kernel=6.18"}, "20260727T1: the start of 3 result set ids in " + dir + "/kdelta/kdelta.db: 20260727T120000-0d0d0d0d0d04 (2026-07-27 12:00Z host=p10 kernel=6.16); "},
		{[]string{"compare", "20261", "kernel=6.18"}, "20261: no such file, and no result set in " + dir + "/kdelta/kdelta.db has an id starting so"},
		{[]string{"compare", filepath.Join(dir, "missing.json"), "kernel=6.18"}, "missing.json: no such file"},
		{[]string{"results", "show", "kernel=6.16"}, "kernel=6.16: 2 result sets"},
		{[]string{"results", "tag", "kernel=6.16", "a=b"}, "kernel=6.16: 2 result sets"},
		{[]string{"results", "tag", "kernel=6.18", "nokey"}, `results tag: "nokey" is not key=value`},
		{[]string{"results", "export", "nosuch"}, "nosuch: no such file, and no result set"},
		{[]string{"results", "ls", "--label", "x"}, `--label: "x" is not key=value`},
		{[]string{"env", "diff", "kernel=6.16", "kernel=6.18"}, "kernel=6.16: 2 result sets"},
	}
	for _, tt := range tests {
		code, _, errs := kd(t, tt.args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("kdelta %v: exit %d, stderr %q; want exit 2 and one line containing %q", tt.args, code, errs, tt.want)
		}
	}
	// Labels that match one set each compare, as in seed mail 000: two
	// sessions, one a side, with no session noise known here, so the
	// -30% is judged under the stated prior, which the verdict names
	// (issue 34).
	code, out, errs := kd(t, "compare", "kernel=6.15-rc6", "kernel=6.18")
	if code != 0 || !strings.Contains(out, "A: kernel=6.15-rc6 (baseline)") || !strings.Contains(strings.Join(strings.Fields(out), " "), "10 runs × 1 session each, session noise ±10.0% assumed") {
		t.Errorf("compare by labels: exit %d\n%s%s", code, out, errs)
	}
	// A query of two sets is two sessions of its side (issue 34).
	code, out, errs = kd(t, "compare", "kernel=6.16", "kernel=6.18")
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "(5 runs × 2 sessions vs 10 runs × 1 session") {
		t.Errorf("compare kernel=6.16 (two sets) kernel=6.18: exit %d\n%s%s", code, out, errs)
	}
}

// TestRecording checks that import and stat record their sets unless
// --no-store, and that a store that cannot be used stops them before they
// start.
func TestRecording(t *testing.T) {
	path := ownStore(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "kill.txt")
	os.WriteFile(in, []byte("stress-ng: info:  [1] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\n"+
		"stress-ng: info:  [1]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\n"+
		"stress-ng: info:  [1] kill            2064621     20.00      2.27     17.71    103207.85      103324.22\n"), 0o644)
	code, _, errs := kd(t, "import", in, "--label", "kernel=6.15-rc6")
	if code != 0 || !strings.Contains(errs, "kdelta: recorded as ") || !strings.Contains(errs, " in "+path) {
		t.Fatalf("import: exit %d: %q", code, errs)
	}
	if code, _, errs = kd(t, "import", in, "--no-store"); code != 0 || strings.Contains(errs, "recorded") {
		t.Errorf("import --no-store: exit %d: %q", code, errs)
	}
	other := filepath.Join(dir, "other.db")
	if code, _, _ = kd(t, "import", in, "--store", other, "--label", "kernel=6.16"); code != 0 {
		t.Errorf("import --store: exit %d", code)
	}
	if code, _, errs = kd(t, "stat", "-r", "2", "--label", "kernel=6.18", "--", "true"); code != 0 || !strings.Contains(errs, "recorded as") {
		t.Errorf("stat: exit %d: %q", code, errs)
	}
	_, out, _ := kd(t, "results", "ls")
	if !strings.Contains(out, "kernel=6.15-rc6") || !strings.Contains(out, "kernel=6.18") || strings.Count(out, "\n") != 3 {
		t.Errorf("default store:\n%s", out)
	}
	if _, out, _ = kd(t, "results", "ls", "--store", other); !strings.Contains(out, "kernel=6.16") {
		t.Errorf("--store:\n%s", out)
	}
	if code, _, errs = kd(t, "import", in, "--store", other, "--no-store"); code != 2 || !strings.Contains(errs, "--store and --no-store") {
		t.Errorf("--store with --no-store: exit %d: %q", code, errs)
	}
	bad := filepath.Join(dir, "bad.db")
	os.WriteFile(bad, []byte("not a database\n"), 0o644)
	code, _, errs = kd(t, "stat", "--store", bad, "--", "true")
	if code != 2 || !strings.Contains(errs, bad+": not a kdelta store") || !strings.Contains(errs, "--no-store") {
		t.Errorf("stat into a corrupt store: exit %d: %q", code, errs)
	}
}

// TestStoreOnPostgres records into, lists and reads a PostgreSQL store
// through the command line: --store with a URL, and $KDELTA_STORE for
// the commands that name sets.
func TestStoreOnPostgres(t *testing.T) {
	base := os.Getenv("KDELTA_TEST_POSTGRES")
	if base == "" {
		testenv.Skip(t, "KDELTA_TEST_POSTGRES is not set: no PostgreSQL to test against (eval \"$(scripts/postgres.sh)\" starts one)")
	}
	// A schema of its own, so the test sees only its sets.
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema := fmt.Sprintf("kdelta_cli_test_%d", time.Now().UnixNano())
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP SCHEMA " + schema + " CASCADE")
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	url := base + sep + "search_path=" + schema
	elnStore(t, url)

	in := filepath.Join(t.TempDir(), "kill.txt")
	os.WriteFile(in, []byte("stress-ng: info:  [1] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\n"+
		"stress-ng: info:  [1]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\n"+
		"stress-ng: info:  [1] kill            1405620     20.00      2.27     17.71     70281.00       70391.22\n"), 0o644)
	code, _, errs := kd(t, "import", in, "--store", url, "--label", "kernel=6.17")
	if code != 0 || !strings.Contains(errs, "recorded as") || strings.Contains(errs, "password") {
		t.Fatalf("import --store postgres: exit %d: %q", code, errs)
	}
	code, out, errs := kd(t, "results", "ls", "--store", url, "--label", "host=p10")
	if code != 0 || strings.Count(out, "\n") != 5 {
		t.Errorf("results ls: exit %d:\n%s%s", code, out, errs)
	}
	t.Setenv("KDELTA_STORE", url)
	// Two imports, one session each: judged under the stated prior until
	// the host's session noise is in the store, then under that.
	if code, out, errs = kd(t, "compare", "kernel=6.15-rc6", "kernel=6.18"); code != 0 || !strings.Contains(out, "assumed for a machine of unknown kind") {
		t.Errorf("compare on postgres: exit %d\n%s%s", code, out, errs)
	}
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	key := store.NoiseKey{Host: "p10", Workload: "kill", Params: "mode=self", Metric: "bogo-ops/s"}
	if err := st.SaveNoise(context.Background(), store.Noise{Key: key, Noise: stats.SessionNoise{SD: 0.01, MeanSD: 0.011, Runs: 10, DF: 7}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if code, out, errs = kd(t, "compare", "kernel=6.15-rc6", "kernel=6.18"); code != 0 || !strings.Contains(out, "regressed (10 runs × 1 session each, session noise") || !strings.Contains(out, "±1.0%)") {
		t.Errorf("compare on postgres, calibrated: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = kd(t, "history", "--by", "kernel", "--workload", "kill")
	want, _ := os.ReadFile(filepath.Join("testdata", "history-text.golden"))
	if code != 0 || out != string(want) {
		t.Errorf("history on postgres differs from SQLite's golden output: exit %d\n%s%s", code, out, errs)
	}
}
