package lab_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/testenv"
	"github.com/kdelta/kdelta/internal/vm"
)

// kernelImage is a real kernel image whose release a boot step reads from
// its header: $KDELTA_TEST_KERNEL, or the newest scripts/vm-kernel.sh left
// in the cache.
func kernelImage(t *testing.T) string {
	t.Helper()
	if k := os.Getenv("KDELTA_TEST_KERNEL"); k != "" {
		return k
	}
	cache, _ := os.UserCacheDir()
	found, _ := filepath.Glob(filepath.Join(cache, "kdelta", "kernels", "*-amd64", "boot", "vmlinuz-*"))
	if len(found) == 0 {
		testenv.Skip(t, "no kernel image: set KDELTA_TEST_KERNEL or run scripts/vm-kernel.sh")
	}
	sort.Strings(found)
	return found[len(found)-1]
}

// A bootedRoot is the /proc an agent started with --root reads: the
// kernel the played machine runs.
type bootedRoot struct {
	t   *testing.T
	dir string
}

func newBootedRoot(t *testing.T) *bootedRoot {
	r := &bootedRoot{t: t, dir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(r.dir, "proc/sys/kernel/random"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.dir, "proc/loadavg"), []byte("0.50 0.40 0.30 1/100 4242\n"), 0o644)
	return r
}

// boot makes the played machine run release with cmdline in boot id.
func (r *bootedRoot) boot(release, cmdline, id string) {
	for p, v := range map[string]string{"proc/sys/kernel/osrelease": release, "proc/cmdline": cmdline, "proc/sys/kernel/random/boot_id": id} {
		if err := os.WriteFile(filepath.Join(r.dir, p), []byte(v+"\n"), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Acceptance 3, the lab's half: the boot/measure protocol of the kexec
// backend across reboots, with real agent processes against PostgreSQL.
// Each reboot is played: the agent, with --reboot exit, records the boot
// and exits where it would reboot, and the test starts it again with the
// /proc of the kernel the machine came up in (--root). A boot into the
// job's kernel (another boot id, the job's release and command line) is
// completed in the transaction that queues the measuring step, which
// stores its runs once; a boot id that did not change, or a machine back
// in another kernel, fails the job as "did not boot" and the agent takes
// the next job.
func TestKexecBootAcrossReboots(t *testing.T) {
	m := newMachine(t)
	l := newPGLab(t, m)
	image := kernelImage(t)
	k, err := vm.InspectKernel(image)
	if err != nil {
		t.Fatal(err)
	}
	root := newBootedRoot(t)
	const before = "root=/dev/vda1 console=ttyS0"
	root.boot("6.1.0-lab-default", before, "11111111-1111-4111-8111-111111111111")
	admin := l.open(t, l.admin)
	agent := func(t *testing.T, what string) string {
		t.Helper()
		p := m.start("agent", "--store", l.as("agent"), "--name", "kx-a", "--once", "--lease", "2s", "--reboot", "exit", "--root", root.dir)
		if code := p.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("agent (%s): exit %d\n%s", what, code, p.stderr.String())
		}
		return p.stderr.String()
	}
	submit := func(t *testing.T, args ...string) int64 {
		t.Helper()
		ids, _ := jobIDs(t, m.ok(append([]string{"submit", "--store", l.as("submitter"), "--on", "kx-a"}, args...)...))
		return ids[0]
	}
	kexecJob := []string{"--kexec", image, "--kexec-append", "kdelta.lab=kexec", "--boot-deadline", "1m",
		"--", "run", "syscall:calls=20000", "-r", "3", "--warmup", "0"}

	t.Run("booted", func(t *testing.T) {
		id := submit(t, kexecJob...)
		log := agent(t, "before the boot")
		if !strings.Contains(log, "rebooting into "+k.Release) {
			t.Fatalf("the agent did not say it reboots into %s:\n%s", k.Release, log)
		}
		// The boot is recorded, the job still running: its agent went
		// with the old kernel.
		var release, cmdline, bootID string
		if err := admin.QueryRow("SELECT release, cmdline, boot_id FROM lab_boots WHERE job_id = $1", id).Scan(&release, &cmdline, &bootID); err != nil {
			t.Fatalf("lab_boots of job %d: %v", id, err)
		}
		want := before + " kdelta.lab=kexec"
		if release != k.Release || cmdline != want || bootID != "11111111-1111-4111-8111-111111111111" {
			t.Errorf("boot record %s %q %s; want %s %q and the boot id before", release, cmdline, bootID, k.Release, want)
		}
		if j := jobInfo(t, l.admin, id); j.State != "running" {
			t.Fatalf("the boot step after its reboot: %s, want running", j.State)
		}
		root.boot(k.Release, want, "22222222-2222-4222-8222-222222222222")
		log = agent(t, "after the boot")
		if j := jobInfo(t, l.admin, id); j.State != "completed" {
			t.Fatalf("the boot step after the boot: %s %q, want completed\n%s", j.State, j.Errors, log)
		}
		// One measuring step, queued by the boot step, in that boot.
		measure := measuringSteps(t, admin, id)
		if len(measure) != 1 {
			t.Fatalf("measuring steps of job %d: %v, want one\n%s", id, measure, log)
		}
		j := jobInfo(t, l.admin, measure[0])
		if j.State != "completed" || j.Args.Booted == nil || j.Args.Booted.BootID != "22222222-2222-4222-8222-222222222222" || j.Args.Booted.Release != k.Release {
			t.Fatalf("measuring step %d: %s, booted %+v\n%s", j.ID, j.State, j.Args.Booted, log)
		}
		checkRuns(t, l.admin, j.Sets, 3)
		show := m.ok("jobs", "show", "--store", l.as("reader"), idArg(id), idArg(j.ID))
		if !strings.Contains(show, "  boot:     kexec "+image+" (initrd -, append kdelta.lab=kexec), back within 1m0s\n") ||
			!strings.Contains(show, "  booted:   "+k.Release+", boot 22222222-2222-4222-8222-222222222222 (job "+idArg(id)+")\n") {
			t.Errorf("jobs show of the boot and measuring steps:\n%s", show)
		}
		if ls := m.ok("jobs", "ls", "--store", l.as("reader")); !strings.Contains(ls, "kexec "+filepath.Base(image)+", then run syscall") {
			t.Errorf("jobs ls does not show the boot step:\n%s", ls)
		}
		if n := pgCount(t, admin, "SELECT COUNT(*) FROM lab_runs WHERE job_id = "+idArg(j.ID)); n != 3 {
			t.Errorf("%d runs stored for the measuring step, want 3", n)
		}
		// Started again in the same boot, the agent finds nothing to do:
		// the boot step is done, once.
		agent(t, "once more")
		if again := measuringSteps(t, admin, id); len(again) != 1 {
			t.Errorf("measuring steps after another start: %v", again)
		}
	})

	// didNotBoot checks that boot step id was cancelled with why, queued
	// no measuring step, and that the job next (if any) ran after it.
	didNotBoot := func(t *testing.T, id, next int64, why, log string) {
		t.Helper()
		j := jobInfo(t, l.admin, id)
		if j.State != "cancelled" || len(j.Errors) == 0 || !strings.Contains(j.Errors[len(j.Errors)-1], why) {
			t.Errorf("boot step: %s %q; want cancelled, %q\n%s", j.State, j.Errors, why, log)
		}
		if n := len(measuringSteps(t, admin, id)); n != 0 {
			t.Errorf("%d measuring steps queued for a kernel that did not boot", n)
		}
		if next == 0 {
			return
		}
		if j := jobInfo(t, l.admin, next); j.State != "completed" {
			t.Errorf("the job after it: %s, want completed", j.State)
		}
	}

	t.Run("boot id unchanged", func(t *testing.T) {
		id := submit(t, kexecJob...)
		next := submit(t, "--", "noop")
		agent(t, "before the boot")
		// The machine runs the last job's kernel: this job's arguments
		// follow the same base, not that job's.
		var cmdline string
		if err := admin.QueryRow("SELECT cmdline FROM lab_boots WHERE job_id = $1", id).Scan(&cmdline); err != nil || cmdline != before+" kdelta.lab=kexec" {
			t.Errorf("boot record's command line %q (%v); want %q", cmdline, err, before+" kdelta.lab=kexec")
		}
		// Started again with no reboot between: the same boot id.
		log := agent(t, "not rebooted")
		didNotBoot(t, id, next, "did not boot: the boot id is still 22222222", log)
	})

	t.Run("another kernel came back", func(t *testing.T) {
		id := submit(t, kexecJob...)
		next := submit(t, "--", "noop")
		agent(t, "before the boot")
		// A power cycle: the machine's default kernel, a new boot.
		root.boot("6.1.0-lab-default", before, "33333333-3333-4333-8333-333333333333")
		log := agent(t, "back in the default kernel")
		didNotBoot(t, id, next, "did not boot: 6.1.0-lab-default is running, not "+k.Release, log)
	})

	t.Run("back after the deadline", func(t *testing.T) {
		id := submit(t, "--kexec", image, "--kexec-append", "kdelta.lab=kexec", "--boot-deadline", "1s",
			"--", "run", "syscall:calls=20000", "-r", "1", "--warmup", "0")
		agent(t, "before the boot")
		time.Sleep(1500 * time.Millisecond)
		root.boot(k.Release, before+" kdelta.lab=kexec", "44444444-4444-4444-8444-444444444444")
		log := agent(t, "late")
		didNotBoot(t, id, 0, "did not boot within the deadline", log)
	})

	// Bad input: one line, exit 2.
	for _, args := range [][]string{
		{"--kexec", "vmlinuz", "--", "run", "syscall"},
		{"--kexec", image, "--", "vm", "--kernel", image, "--", "run", "syscall"},
		{"--kexec-append", "x=1", "--", "run", "syscall"},
	} {
		_, errs, code := m.run(append([]string{"submit", "--store", l.as("submitter"), "--on", "kx-a"}, args...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("submit %v: exit %d, %q; want 2 and one line", args, code, errs)
		}
	}
	if _, errs, code := m.run("agent", "--store", l.as("agent"), "--reboot", "halt"); code != 2 || !strings.Contains(errs, "--reboot") {
		t.Errorf("agent --reboot halt: exit %d, %q; want 2 naming --reboot", code, errs)
	}
}

// measuringSteps are the ids of the jobs boot step id queued.
func measuringSteps(t *testing.T, db *sql.DB, id int64) []int64 {
	t.Helper()
	rows, err := db.Query("SELECT id FROM river_job WHERE (args->'booted'->>'job')::bigint = $1 ORDER BY id", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		rows.Scan(&n)
		out = append(out, n)
	}
	return out
}

// One machine: the boot/measure protocol on the embedded SQLite store,
// River's riversqlite driver completing the boot step and queueing the
// measuring step in one transaction too.
func TestKexecBootSQLite(t *testing.T) {
	m := newMachine(t)
	image := kernelImage(t)
	k, err := vm.InspectKernel(image)
	if err != nil {
		t.Fatal(err)
	}
	root := newBootedRoot(t)
	root.boot("6.1.0-lab-default", "root=/dev/sda2", "55555555-5555-4555-8555-555555555555")
	ids, _ := jobIDs(t, m.ok("submit", "--on", "one", "--kexec", image, "--", "run", "syscall:calls=20000", "-r", "2", "--warmup", "0"))
	agent := func(what string) string {
		p := m.start("agent", "--name", "one", "--once", "--lease", "2s", "--reboot", "exit", "--root", root.dir)
		if code := p.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("agent (%s): exit %d\n%s", what, code, p.stderr.String())
		}
		return p.stderr.String()
	}
	agent("before the boot")
	root.boot(k.Release, "root=/dev/sda2", "66666666-6666-4666-8666-666666666666")
	log := agent("after the boot")
	if j := jobInfo(t, m.db(), ids[0]); j.State != "completed" {
		t.Fatalf("boot step: %s %q\n%s", j.State, j.Errors, log)
	}
	db := m.sqlite()
	var measure int64
	if err := db.QueryRow("SELECT id FROM river_job WHERE json_extract(args, '$.booted.job') = ?", ids[0]).Scan(&measure); err != nil {
		t.Fatalf("the measuring step: %v\n%s", err, log)
	}
	j := jobInfo(t, m.db(), measure)
	if j.State != "completed" {
		t.Fatalf("measuring step %d: %s %q\n%s", measure, j.State, j.Errors, log)
	}
	checkRuns(t, m.db(), j.Sets, 2)
}
