package lab_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/lab"
)

// jobIDs reads submit's output: one "ID AGENT" line per job.
func jobIDs(t *testing.T, out string) ([]int64, []string) {
	t.Helper()
	var ids []int64
	var agents []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("submit printed %q, want ID AGENT lines", out)
		}
		id, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			t.Fatalf("submit printed %q: %v", out, err)
		}
		ids, agents = append(ids, id), append(agents, f[1])
	}
	return ids, agents
}

func jobInfo(t *testing.T, loc string, id int64) lab.JobInfo {
	t.Helper()
	js, err := lab.Jobs(context.Background(), loc, []int64{id}, lab.Show, 0)
	if err != nil {
		t.Fatal(err)
	}
	return js[0]
}

// Acceptance 7: one machine queues a job for itself and its agent runs it
// from the embedded SQLite store, River's tables beside the store's.
func TestOneMachine(t *testing.T) {
	m := newMachine(t)
	ids, _ := jobIDs(t, m.ok("submit", "--", "run", "syscall:calls=20000", "-r", "3", "--warmup", "1"))
	if len(ids) != 1 {
		t.Fatalf("submit queued %d jobs, want 1", len(ids))
	}
	p := m.start("agent", "--once")
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("agent --once: exit %d\n%s", code, p.stderr.String())
	}
	j := jobInfo(t, m.db(), ids[0])
	if j.State != "completed" || len(j.Sets) != 1 || j.Stored != 3 {
		t.Fatalf("job %d: %s, %d runs stored, sets %v; want completed, 3 runs, one set\n%s", j.ID, j.State, j.Stored, j.Sets, p.stderr.String())
	}
	checkRuns(t, m.db(), j.Sets, 3)
	db := m.sqlite()
	if n := count(t, db, "SELECT COUNT(*) FROM river_migration"); n == 0 {
		t.Error("River's migrations are not recorded in the store's database")
	}
	out := m.ok("results", "ls", "--label", "lab.job="+strconv.FormatInt(j.ID, 10))
	if !strings.Contains(out, j.Sets[0]) {
		t.Errorf("results ls --label lab.job=%d does not list set %s:\n%s", j.ID, j.Sets[0], out)
	}
	if out := m.ok("jobs", "ls"); !strings.Contains(out, "completed") || !strings.Contains(out, "3/3") {
		t.Errorf("jobs ls:\n%s", out)
	}
	out = m.ok("agents", "ls")
	if !strings.Contains(out, "stopped") || !strings.Contains(out, "host=") {
		t.Errorf("agents ls:\n%s", out)
	}
}

// A killed agent's job goes back to its queue after the lease and is
// resumed from its stored runs: each run is stored once, none is missing,
// and the second attempt measures only the rest.
func TestKilledAgentResumes(t *testing.T) {
	m := newMachine(t)
	const runs = 10
	ids, _ := jobIDs(t, m.ok("submit", "--", "run", "syscall:calls=600000", "-r", strconv.Itoa(runs), "--warmup", "0"))
	db := m.sqlite()
	p := m.start("agent", "--lease", "1s")
	until(t, 30*time.Second, "two runs stored", func() bool {
		return count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ?", ids[0]) >= 2
	})
	p.signal(syscall.SIGKILL)
	p.wait(t, 5*time.Second)
	before := count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ?", ids[0])
	if before >= runs {
		t.Fatalf("the job stored all %d runs before the kill: make its runs longer", before)
	}
	if s := jobInfo(t, m.db(), ids[0]).State; s != "running" {
		t.Fatalf("job after its agent was killed: %s, want running", s)
	}
	q := m.start("agent", "--once", "--lease", "1s")
	if code := q.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("agent --once: exit %d\n%s", code, q.stderr.String())
	}
	t.Logf("the restarted agent's log:\n%s", q.stderr.String())
	j := jobInfo(t, m.db(), ids[0])
	if j.State != "completed" || j.Attempt != 2 {
		t.Fatalf("job %d: %s after %d attempts, want completed after 2\n%s", j.ID, j.State, j.Attempt, q.stderr.String())
	}
	checkRuns(t, m.db(), j.Sets, runs)
	after := count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ? AND attempt = 2", ids[0])
	if before+after != runs {
		t.Errorf("the first attempt stored %d runs and the second %d: want %d in all", before, after, runs)
	}
	if !strings.Contains(q.stderr.String(), "handed back") || !strings.Contains(q.stderr.String(), "resuming after") {
		t.Errorf("the agent's log does not say it handed the job back and resumed it:\n%s", q.stderr.String())
	}
}

// SIGTERM lets the run under way finish, hands the job back and stops;
// the next agent finishes the job.
func TestSIGTERMHandsBack(t *testing.T) {
	m := newMachine(t)
	const runs = 12
	ids, _ := jobIDs(t, m.ok("submit", "--", "run", "syscall:calls=600000", "-r", strconv.Itoa(runs), "--warmup", "0"))
	db := m.sqlite()
	p := m.start("agent")
	until(t, 30*time.Second, "a run stored", func() bool {
		return count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ?", ids[0]) >= 1
	})
	checkHeartbeat(t, m.db(), ids[0])
	at := count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ?", ids[0])
	p.signal(syscall.SIGTERM)
	if code := p.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("agent after SIGTERM: exit %d\n%s", code, p.stderr.String())
	}
	stored := count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ?", ids[0])
	j := jobInfo(t, m.db(), ids[0])
	if j.State != "available" || stored <= at || stored >= runs {
		t.Fatalf("after SIGTERM at %d runs: job %s with %d runs stored; want available, the run under way stored and no more\n%s", at, j.State, stored, p.stderr.String())
	}
	q := m.start("agent", "--once")
	q.wait(t, 30*time.Second)
	j = jobInfo(t, m.db(), ids[0])
	if j.State != "completed" {
		t.Fatalf("job %d: %s\n%s", j.ID, j.State, q.stderr.String())
	}
	checkRuns(t, m.db(), j.Sets, runs)
}

// Jobs go to the agents whose labels match: --on by name, --select to a
// live agent with the labels, --each to every agent with them.
func TestLabels(t *testing.T) {
	m := newMachine(t)
	a := m.start("agent", "--name", "p10-a", "--labels", "arch=ppc64le,zone=1", "--lease", "2s")
	b := m.start("agent", "--name", "epyc-b", "--labels", "arch=amd64,zone=1", "--lease", "2s")
	m.ok("agent", "--once", "--name", "p10-c", "--labels", "arch=ppc64le,zone=2")
	db := m.sqlite()
	// Three processes create and migrate one fresh store at once: each
	// waits for the others' locks.
	until(t, 45*time.Second, "agents registered", func() bool {
		return count(t, db, "SELECT COUNT(*) FROM lab_agents") == 3
	}, func() {
		rows, err := db.Query("SELECT name FROM lab_agents")
		for err == nil && rows.Next() {
			var name string
			rows.Scan(&name)
			t.Logf("registered: %s", name)
		}
		t.Logf("p10-a's log:\n%s\nepyc-b's log:\n%s", a.stderr.String(), b.stderr.String())
	})
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--select", "arch=ppc64le"}, []string{"p10-a"}}, // p10-c is not running
		{[]string{"--select", "arch=amd64,zone=1"}, []string{"epyc-b"}},
		{[]string{"--on", "p10-c"}, []string{"p10-c"}},
		{[]string{"--on", "nowhere"}, []string{"nowhere"}},
		{[]string{"--each", "arch=ppc64le"}, []string{"p10-a", "p10-c"}},
		{[]string{"--each", "zone=1"}, []string{"epyc-b", "p10-a"}},
	}
	var live []int64
	for _, c := range cases {
		ids, agents := jobIDs(t, m.ok(append(append([]string{"submit"}, c.args...), "--", "noop")...))
		if strings.Join(agents, " ") != strings.Join(c.want, " ") {
			t.Errorf("submit %s: queued for %v, want %v", strings.Join(c.args, " "), agents, c.want)
		}
		for i, id := range ids {
			if agents[i] == "p10-a" || agents[i] == "epyc-b" {
				live = append(live, id)
			}
		}
	}
	args := []string{"jobs", "wait"}
	for _, id := range live {
		args = append(args, strconv.FormatInt(id, 10))
	}
	m.ok(args...)
	for _, id := range live {
		if j := jobInfo(t, m.db(), id); j.State != "completed" {
			t.Errorf("job %d for %s: %s", id, j.Args.Agent, j.State)
		}
	}
	a.signal(syscall.SIGTERM)
	b.signal(syscall.SIGTERM)
	a.wait(t, 10*time.Second)
	b.wait(t, 10*time.Second)
}

// Bad input is one line naming what is wrong, exit status 2, and queues
// nothing.
func TestBadInput(t *testing.T) {
	m := newMachine(t)
	cases := [][]string{
		{"submit"},
		{"submit", "--", "frob"},
		{"submit", "--", "run", "nosuchworkload"},
		{"submit", "--", "run", "syscall", "-r", "x"},
		{"submit", "--", "run", "syscall", "--store", "/tmp/x.db"},
		{"submit", "--", "ab", "--variant", "a:", "--", "syscall"},
		{"submit", "--", "stat", "-r", "2", "true"},
		{"submit", "--select", "arch", "--", "noop"},
		{"submit", "--on", "a", "--each", "b=c", "--", "noop"},
		{"submit", "--on", "bad name", "--", "noop"},
		{"submit", "--select", "arch=sparc", "--", "noop"},
		{"submit", "--each", "arch=sparc", "--", "noop"},
		{"jobs", "show", "abc"},
		{"jobs", "show", "99"},
		{"agent", "--labels", "x"},
		{"agent", "--name", "-x"},
		{"lab", "init"},
	}
	for _, c := range cases {
		out, errs, code := m.run(c...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "kdelta: ") {
			t.Errorf("kdelta %s: exit %d, stdout %q, stderr %q; want exit 2 and one line", strings.Join(c, " "), code, out, errs)
		}
	}
	if out := m.ok("jobs", "ls"); strings.Count(out, "\n") != 1 {
		t.Errorf("jobs were queued from bad input:\n%s", out)
	}
}

// A cancelled job stops on its agent, keeps what it stored, and retried
// it resumes from there; a completed job is not retried.
func TestCancelRetry(t *testing.T) {
	m := newMachine(t)
	const runs = 10
	ids, _ := jobIDs(t, m.ok("submit", "--", "run", "syscall:calls=600000", "-r", strconv.Itoa(runs), "--warmup", "0"))
	id := strconv.FormatInt(ids[0], 10)
	db := m.sqlite()
	p := m.start("agent")
	until(t, 30*time.Second, "two runs stored", func() bool {
		return count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ?", ids[0]) >= 2
	})
	m.ok("jobs", "cancel", id)
	until(t, 10*time.Second, "the job cancelled", func() bool { return jobInfo(t, m.db(), ids[0]).State == "cancelled" })
	stored := count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ?", ids[0])
	time.Sleep(500 * time.Millisecond)
	if n := count(t, db, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ?", ids[0]); n != stored || n >= runs {
		t.Fatalf("the cancelled job went on storing runs (%d, then %d)", stored, n)
	}
	p.signal(syscall.SIGTERM)
	p.wait(t, 10*time.Second)
	m.ok("jobs", "retry", id)
	q := m.start("agent", "--once")
	q.wait(t, 30*time.Second)
	j := jobInfo(t, m.db(), ids[0])
	if j.State != "completed" {
		t.Fatalf("job %d after retry: %s\n%s", j.ID, j.State, q.stderr.String())
	}
	checkRuns(t, m.db(), j.Sets, runs)
	if _, errs, code := m.run("jobs", "retry", id); code != 2 || !strings.Contains(errs, "completed") {
		t.Errorf("jobs retry of a completed job: exit %d, %q; want 2 saying it completed", code, errs)
	}
}

// checkHeartbeat checks that the one agent's heartbeat names the kernel
// and boot it runs and the job it runs.
func checkHeartbeat(t *testing.T, loc string, job int64) {
	t.Helper()
	release, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	var a lab.AgentInfo
	until(t, 10*time.Second, "the heartbeat naming the job", func() bool {
		agents, err := lab.ListAgents(context.Background(), loc)
		if err != nil || len(agents) != 1 {
			t.Fatalf("agents: %v %v", agents, err)
		}
		a = agents[0]
		return a.Job == job
	})
	if a.Kernel != strings.TrimSpace(string(release)) || a.BootID != strings.TrimSpace(string(boot)) || !a.Live(time.Now()) || a.Load <= 0 {
		t.Errorf("heartbeat %+v: want kernel %s, boot %s, live, a load", a, release, boot)
	}
}

// A vm job whose kernel does not boot fails with the reason, and the
// agent goes on to the next job.
func TestKernelDidNotBoot(t *testing.T) {
	kernel := testKernel(t)
	m := newMachine(t)
	// No root file system and no init: the kernel panics as it boots.
	bad, _ := jobIDs(t, m.ok("submit", "--", "vm", "--kernel", kernel, "--append", "rdinit=/nonexistent panic=-1",
		"--", "run", "syscall:calls=20000", "-r", "1", "--warmup", "0"))
	next, _ := jobIDs(t, m.ok("submit", "--", "noop"))
	p := m.start("agent", "--once")
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("agent --once: exit %d\n%s", code, p.stderr.String())
	}
	j := jobInfo(t, m.db(), bad[0])
	if j.State != "cancelled" || len(j.Errors) == 0 || !strings.Contains(j.Errors[len(j.Errors)-1], "guest kernel panicked") || j.Stored != 0 {
		t.Errorf("job %d whose kernel did not boot: %s, %d runs, errors %q; want cancelled saying the guest kernel panicked\n%s", j.ID, j.State, j.Stored, j.Errors, p.stderr.String())
	}
	if j := jobInfo(t, m.db(), next[0]); j.State != "completed" {
		t.Errorf("the job after it: %s, want completed", j.State)
	}
}
