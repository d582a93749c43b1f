package lab_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/store"
)

// A vm job's --until-conclusive reaches the agent's kdelta vm: a job that
// names the same kernel and command line twice with --boots 1
// --until-conclusive --max-boots 2 boots each variant twice (the second
// boot only the stopping rule asks for), and stores both boots' runs. A
// job with flags kdelta vm would refuse is refused before it is queued,
// with exit status 2.
func TestVMJobUntilConclusive(t *testing.T) {
	kernel := testKernel(t)
	m := newMachine(t)
	if _, stderr, code := m.run("submit", "--", "vm", "--kernel", kernel, "--until-conclusive", "--", "run", "rcu"); code != 2 ||
		!strings.Contains(stderr, "submit: vm: --until-conclusive: one variant") {
		t.Errorf("submit of an until-conclusive vm job of one variant: exit %d, %q; want 2 and the reason", code, stderr)
	}
	ids, _ := jobIDs(t, m.ok("submit", "--", "vm", "--accel", "tcg", "--timeout", "2m", "--kernel", kernel,
		"--append", "rcupdate.rcu_expedited=1", "--append", "rcupdate.rcu_expedited=1",
		"--boots", "1", "--until-conclusive", "--max-boots", "2", "--alpha", "0.001",
		"--", "run", "rcu:calls=20", "-r", "3", "--warmup", "0", "--timeout", "30s"))
	p := m.start("agent", "--once")
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("agent --once: exit %d\n%s", code, p.stderr.String())
	}
	j := jobInfo(t, m.db(), ids[0])
	if j.State != "completed" || len(j.Sets) != 2 || j.Stored != 2*2*3 {
		t.Fatalf("job %d: %s, %d runs stored, sets %v; want completed, two sets of 2 boots × 3 runs\n%s", j.ID, j.State, j.Stored, j.Sets, p.stderr.String())
	}
	checkRuns(t, m.db(), j.Sets, 6)
	st, err := store.Open(context.Background(), m.db())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, id := range j.Sets {
		s, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Labels["boots"] != "2" {
			t.Errorf("set %s (variant %s): boots %q, want 2 (--max-boots)", id, s.Labels["variant"], s.Labels["boots"])
		}
	}
}
