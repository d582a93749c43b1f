package lab_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/lab"
	"github.com/kdelta/kdelta/internal/testenv"
)

// The knob of the lab's ab job is machine-wide: one short job writes it,
// and the test checks it is back. rcu_normal_wake_from_gp came with Linux
// 6.9; an older kernel's job writes rcu_expedited, a 0/1 knob as well.
var knobs = []string{"/sys/module/rcutree/parameters/rcu_normal_wake_from_gp", "/sys/kernel/rcu_expedited"}

// socketURL is the lab's URL as role through the cluster's unix socket
// in dir, which crosses network namespaces.
func (l *pgLab) socketURL(role, dir string) string {
	u, _ := url.Parse(l.as(role))
	port := u.Port()
	u.Host = ""
	u.RawQuery = url.Values{"host": {dir}, "port": {port}, "sslmode": {"disable"}}.Encode()
	return u.String()
}

// startIn starts kdelta in a network and UTS namespace of its own whose
// host name is host: unshare(1) execs it, so the process started is the
// agent itself.
// Each host keeps its own state (its knob journals), as a machine of a
// lab does.
func (m *machine) startIn(unshare, host string, args ...string) *proc {
	sh := `echo "$0" > /proc/sys/kernel/hostname && exec "$@"`
	return m.startCmd(unshare, append([]string{"--net", "--uts", "--", "env", "XDG_STATE_HOME=" + m.state(host), "sh", "-c", sh, host, kdelta}, args...)...)
}

// state is host's state directory.
func (m *machine) state(host string) string { return filepath.Join(m.dir, "state-"+host) }

// children are the pids of pid's children.
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func gone(pids []int) bool {
	for _, p := range pids {
		if syscall.Kill(p, 0) == nil {
			return false
		}
	}
	return true
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// Acceptances 1 and 2: three agents, each in its own network and UTS
// namespace, reach PostgreSQL through its unix socket and run 30 jobs;
// one agent is killed in the middle of the knob job and started again,
// and the database is restarted while jobs run. Every job ends with
// exactly the runs it asked for, each stored once, and the knob is back.
func TestLabOfThree(t *testing.T) {
	testenv.NeedRoot(t, "agents in network and UTS namespaces of their own, and a job that writes a kernel knob")
	unshare := testenv.NeedCommand(t, "unshare", "util-linux")
	pgdir := os.Getenv("KDELTA_TEST_POSTGRES_DIR")
	if pgdir == "" {
		testenv.Skip(t, "KDELTA_TEST_POSTGRES_DIR is not set: no cluster to reach by its socket and restart (eval \"$(scripts/postgres.sh)\")")
	}
	wakeKnob := ""
	for _, k := range knobs {
		if _, err := os.Stat(k); err == nil {
			wakeKnob = k
			break
		}
	}
	if wakeKnob == "" {
		testenv.Skipf(t, "this kernel has none of %v", knobs)
	}
	readKnob := func(t *testing.T) string { return readFile(t, wakeKnob) }
	orig := readKnob(t)
	other := map[string]string{"0": "1", "1": "0"}[orig]
	m := newMachine(t)
	l := newPGLab(t, m)
	admin := l.open(t, l.admin)
	sock := l.socketURL("agent", pgdir)
	agents := map[string]*proc{}
	agentArgs := []string{"agent", "--store", sock, "--labels", "lab=1", "--lease", "2s"}
	for _, h := range []string{"lab-a", "lab-b", "lab-c"} {
		agents[h] = m.startIn(unshare, h, agentArgs...)
	}
	until(t, 20*time.Second, "three agents beating", func() bool {
		return pgCount(t, admin, "SELECT COUNT(*) FROM lab_agents WHERE stopped = 0") == 3
	})
	checkNamespaces(t, admin, agents)

	sub := l.as("submitter")
	var ids []int64
	want := map[int64]int{}
	submit := func(args ...string) {
		got, _ := jobIDs(t, m.ok(append([]string{"submit", "--store", sub}, args...)...))
		for _, id := range got {
			ids = append(ids, id)
			want[id] = 2
		}
	}
	defer func() {
		if got := readKnob(t); got != orig {
			t.Errorf("%s is %s after the lab, want %s as before", wakeKnob, got, orig)
		}
	}()
	// The knob job first, on lab-c, with runs long enough to kill it in.
	submit("--on", "lab-c", "--", "ab", "--variant", "a:"+wakeKnob+"="+other, "--variant", "b:"+wakeKnob+"="+orig,
		"-r", "3", "--warmup", "0", "--", "syscall:calls=2000000")
	abJob := ids[0]
	want[abJob] = 3
	for i := 0; i < 9; i++ {
		job := [][]string{
			{"run", "syscall:calls=20000", "-r", "2", "--warmup", "0"},
			{"run", "pipe:loops=2000", "-r", "2", "--warmup", "0"},
			{"run", "kill:ops=200,ramp=false", "-r", "2", "--warmup", "0"},
		}[i%3]
		submit(append([]string{"--each", "lab=1", "--"}, job...)...)
	}
	submit("--select", "lab=1", "--", "run", "pipe:loops=20000", "-r", "2", "--warmup", "0")
	submit("--select", "lab=1", "--", "stat", "-r", "2", "--", "true")
	if len(ids) != 30 {
		t.Fatalf("%d jobs queued, want 30", len(ids))
	}

	// Fault 1: lab-c is killed while its knob job runs, and comes back.
	// Variant a changes the knob: lab-c is killed in a later run of it,
	// with the knob changed and journalled by the job.
	journal := filepath.Join(m.state("lab-c"), "kdelta", "restore.d")
	until(t, 60*time.Second, "the knob job's first round stored and the knob changed again", func() bool {
		ents, _ := os.ReadDir(journal)
		return pgCount(t, admin, fmt.Sprintf("SELECT COUNT(*) FROM lab_runs WHERE job_id = %d", abJob)) >= 2 &&
			pgCount(t, admin, fmt.Sprintf("SELECT COUNT(*) FROM lab_agents WHERE name = 'lab-c' AND job_id = %d", abJob)) == 1 &&
			len(ents) > 0 && readKnob(t) == other
	}, func() {
		logs(t, agents)
		rows, _ := admin.Query("SELECT id, state, queue, attempt FROM river_job ORDER BY id")
		for rows != nil && rows.Next() {
			var id, attempt int
			var state, queue string
			rows.Scan(&id, &state, &queue, &attempt)
			t.Logf("job %d: %s on %s, attempt %d", id, state, queue, attempt)
		}
	})
	c := agents["lab-c"]
	kids := children(c.cmd.Process.Pid)
	c.signal(syscall.SIGKILL)
	c.wait(t, 10*time.Second)
	until(t, 10*time.Second, "the killed agent's job gone with it", func() bool { return gone(kids) })
	killedAt := readKnob(t)
	journals, _ := filepath.Glob(filepath.Join(journal, "*"))
	t.Logf("killed lab-c with children %v; knob %s; journals %v", kids, killedAt, journals)
	agents["lab-c"] = m.startIn(unshare, "lab-c", agentArgs...)
	until(t, 10*time.Second, "the knob restored by the restarted agent", func() bool {
		log := agents["lab-c"].stderr.String()
		return readKnob(t) == orig && strings.Contains(log, "restored ") && strings.Contains(log, "("+wakeKnob+")")
	}, func() { logs(t, agents) })
	t.Logf("the knob was %s when its job's agent was killed; the restarted agent said:\n%s", killedAt, agents["lab-c"].stderr.String())

	// Fault 2: the database restarts while jobs run.
	until(t, 30*time.Second, "a job running", func() bool {
		return pgCount(t, admin, "SELECT COUNT(*) FROM river_job WHERE state = 'running'") > 0
	})
	restartPostgres(t, pgdir)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	jobs, err := lab.Jobs(ctx, l.admin, ids, lab.Wait, 200*time.Millisecond)
	if err != nil {
		logs(t, agents)
		t.Fatal(err)
	}
	var sets []string
	for _, j := range jobs {
		if j.State != "completed" {
			t.Errorf("job %d (%s on %s): %s %v", j.ID, j.Args.CommandLine(), j.Args.Agent, j.State, j.Errors)
			continue
		}
		checkRuns(t, l.admin, j.Sets, want[j.ID])
		sets = append(sets, j.Sets...)
	}
	if n := pgCount(t, admin, "SELECT COUNT(*) FROM sets"); n != len(sets) || n != 31 {
		t.Errorf("%d result sets stored, %d named by the jobs; want 31 (the ab job has two)", n, len(sets))
	}
	if j := jobInfo(t, l.admin, abJob); j.Attempt < 2 {
		t.Errorf("the knob job completed in %d attempt: its agent's kill did not interrupt it", j.Attempt)
	}
	if t.Failed() {
		logs(t, agents)
	}
	for _, p := range agents {
		p.signal(syscall.SIGTERM)
	}
	for _, p := range agents {
		p.wait(t, 15*time.Second)
	}
}

// checkNamespaces checks that each agent named itself after the host name
// of its UTS namespace and runs in a network namespace not the test's.
func checkNamespaces(t *testing.T, db *sql.DB, agents map[string]*proc) {
	t.Helper()
	rows, err := db.Query("SELECT name FROM lab_agents ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	if strings.Join(names, " ") != "lab-a lab-b lab-c" {
		t.Errorf("agents %v, want lab-a lab-b lab-c (named after their namespaces' host names)", names)
	}
	mine, _ := os.Readlink("/proc/self/ns/net")
	for h, p := range agents {
		ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", p.cmd.Process.Pid))
		if err != nil || ns == mine {
			t.Errorf("agent %s: network namespace %s (%v), the test's is %s", h, ns, err, mine)
		}
	}
}

// restartPostgres restarts the test cluster in dir with pg_ctl.
func restartPostgres(t *testing.T, dir string) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	sort.Strings(bins)
	if len(bins) == 0 {
		t.Fatal("no pg_ctl under /usr/lib/postgresql")
	}
	// The server logs to its file, not to pg_ctl's output, which it would
	// hold open.
	out, err := os.CreateTemp(t.TempDir(), "pg_ctl")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("runuser", "-u", "postgres", "--", bins[len(bins)-1], "-D", filepath.Join(dir, "data"),
		"-l", filepath.Join(dir, "server.log"), "-m", "fast", "-w", "restart")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		b, _ := os.ReadFile(out.Name())
		t.Fatalf("pg_ctl restart: %v\n%s", err, b)
	}
}

func logs(t *testing.T, agents map[string]*proc) {
	for h, p := range agents {
		t.Logf("agent %s's log:\n%s", h, p.stderr.String())
	}
}
