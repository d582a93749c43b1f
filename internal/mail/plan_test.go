package mail_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/mail"
)

// TestPlanParses checks that the job files --plan prints for each seed
// mail and test mail are job files kdelta run -f reads, with the
// workloads, parameters and placement the mail's commands give.
func TestPlanParses(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "context", "00*.txt"))
	if len(seeds) != 5 {
		t.Fatalf("%d seed mails in ../shared/context, want 5", len(seeds))
	}
	files := append(seeds, filepath.Join("testdata", "thread.mbox"), filepath.Join("testdata", "0day.txt"))
	var all []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := mail.Analyze(filepath.Base(f), data)
		if err != nil {
			t.Fatal(err)
		}
		for i, j := range mail.Plan(a) {
			for _, kernels := range [][]string{nil, {"/boot/vmlinuz-a", "/boot/vmlinuz-b"}} {
				text := j.TOML(filepath.Base(f), kernels)
				pj, err := job.Parse(filepath.Base(f), []byte(text))
				if err != nil {
					t.Errorf("%s job %d: %v\n%s", f, i+1, err, text)
					continue
				}
				if pj.FIFO != j.FIFO || pj.Repeat != j.Repeat || len(pj.Workloads) != len(j.Workloads) || len(pj.Variants) != len(kernels) {
					t.Errorf("%s job %d: parsed %+v", f, i+1, pj)
				}
				if kernels == nil {
					for _, w := range pj.Workloads {
						all = append(all, w.Spec())
					}
				}
			}
		}
	}
	got := strings.Join(all, "\n")
	for _, want := range []string{"kill:instances=1", "messaging:groups=20,loops=5000,mode=thread", "rcu:calls=100", "bridge:cycles=100", "context_switch:fp=false", "syscall:soak=250ms,syscall=getppid", "messaging:groups=4,loops=1000,mode=thread", "messaging:ipc=pipe,mode=process"} {
		if !strings.Contains(got, want) {
			t.Errorf("no workload %s among the plans:\n%s", want, got)
		}
	}
}
