package lab

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/vm"
)

// The kexec backend: a job with a Boot is a boot step. Its first attempt
// loads the kernel (kexec_file_load), records the boot in lab_boots (the
// release and command line the kernel must come up with, the boot id it
// leaves, the deadline) and reboots into it; the job stays running, its
// agent gone with the old kernel. Started again in the new kernel
// (systemd), the agent hands its pending boot back to its queue at once,
// and the next attempt finds the record: it checks the running kernel
// against it and completes the boot step in the transaction that queues
// the measuring step, so a reboot or a crash at any point neither loses
// the measurement nor queues it twice. A kernel that is not the one asked
// for, a boot id that did not change, or a check after the deadline fails
// the job with "did not boot", and the agent takes its next job.

// Reboot modes of AgentOptions.Reboot.
const (
	RebootKexec = "kexec"
	RebootExit  = "exit"
)

// A bootRecord is a row of lab_boots.
type bootRecord struct {
	Kernel, Release, Cmdline, BootID string
	// Base is the command line the job's arguments followed.
	Base     string
	Deadline time.Time
}

// root is the directory the agent reads the running kernel's files under.
func (a *agent) root() string {
	if a.opt.Root == "" {
		return "/"
	}
	return a.opt.Root
}

// bootStep works a boot step: before its boot, it boots; after, it checks
// the boot and queues the measuring step.
func (a *agent) bootStep(ctx context.Context, job *river.Job[JobArgs], started time.Time) error {
	rec, err := a.lab.bootRecord(ctx, job.ID)
	if err != nil {
		a.dbFailed()
		return err
	}
	if rec == nil {
		return a.kexec(ctx, job)
	}
	now := vm.ReadBootReport(a.root())
	if err := rec.check(now, time.Now()); err != nil {
		a.logf("job %d: %v", job.ID, err)
		return river.JobCancel(err)
	}
	a.logf("job %d: %s booted (boot %s); queueing its measurement", job.ID, now.Release, now.BootID)
	next := job.Args
	next.Boot, next.Booted = nil, &Booted{Job: job.ID, Release: now.Release, BootID: now.BootID}
	return a.finish(ctx, job, started, river.InsertManyParams{Args: next,
		InsertOpts: &river.InsertOpts{Queue: job.Queue, MaxAttempts: job.MaxAttempts}})
}

// kexec loads the job's kernel, records the boot and reboots into it. It
// returns only on failure, or with Reboot "exit" not at all either.
func (a *agent) kexec(ctx context.Context, job *river.Job[JobArgs]) error {
	b := job.Args.Boot
	k, err := vm.InspectKernel(b.Kernel)
	if err != nil {
		return river.JobCancel(fmt.Errorf("did not boot: %s", strings.TrimPrefix(err.Error(), "--kernel ")))
	}
	before := vm.ReadBootReport(a.root())
	base, err := a.lab.baseCmdline(ctx, a.opt.Name, before.Cmdline)
	if err != nil {
		a.dbFailed()
		return err
	}
	rec := bootRecord{Kernel: b.Kernel, Release: k.Release, BootID: before.BootID, Base: base,
		Cmdline: strings.TrimSpace(base + " " + b.Append)}
	if a.opt.Reboot != RebootExit {
		if err := vm.LoadKernel(b.Kernel, b.Initrd, rec.Cmdline); err != nil {
			return river.JobCancel(fmt.Errorf("did not boot: %w", err))
		}
	}
	deadline := b.Deadline
	if deadline <= 0 {
		deadline = DefaultBootDeadline
	}
	rec.Deadline = time.Now().Add(deadline)
	if err := a.lab.recordBoot(ctx, job.ID, a.opt.Name, rec); err != nil {
		a.dbFailed()
		return err
	}
	a.logf("job %d: rebooting into %s with %q (boot %s; back within %s)", job.ID, rec.Release, rec.Cmdline, rec.BootID, deadline)
	if a.opt.Reboot == RebootExit {
		// The machine's reboot, played: the agent goes at once, its job
		// running, its heartbeat stopping, as with the old kernel.
		a.logf("job %d: --reboot exit: exiting instead", job.ID)
		os.Exit(0)
	}
	if err := sys.RebootKexec(); err != nil {
		return river.JobCancel(fmt.Errorf("did not boot: %w", err))
	}
	return nil
}

// check tells whether now, the running kernel at time at, is the boot
// r recorded.
func (r *bootRecord) check(now vm.BootReport, at time.Time) error {
	switch {
	case now.BootID == r.BootID:
		return fmt.Errorf("did not boot: the boot id is still %s: the machine did not reboot into %s", r.BootID, r.Release)
	case now.Release != r.Release:
		return fmt.Errorf("did not boot: %s is running, not %s", now.Release, r.Release)
	case now.Cmdline != r.Cmdline:
		return fmt.Errorf("did not boot: %s came up with the command line %q, not %q", now.Release, now.Cmdline, r.Cmdline)
	case at.After(r.Deadline):
		return fmt.Errorf("did not boot within the deadline: %s was back %s after it", r.Release, at.Sub(r.Deadline).Round(time.Second))
	}
	return nil
}

// checkBooted refuses to measure outside the boot a boot step made: the
// machine rebooted since (a power cycle brings its default kernel back).
func (a *agent) checkBooted(b *Booted) error {
	now := vm.ReadBootReport(a.root())
	if now.BootID != b.BootID {
		return fmt.Errorf("not measured: the machine rebooted since job %d booted %s (boot %s, now %s in boot %s)", b.Job, b.Release, b.BootID, now.Release, now.BootID)
	}
	return nil
}

// baseCmdline is what a boot step's arguments follow on the command line
// of the kernel it starts: the running kernel's, unless a boot step of
// the agent started that kernel, whose base it is then. So the arguments
// of one job do not carry over into the next's kernel, nor pile up over a
// night of boots.
func (l *Lab) baseCmdline(ctx context.Context, agent, running string) (string, error) {
	var base string
	err := l.db.QueryRowContext(ctx, q(l.pg, `SELECT base FROM lab_boots WHERE agent = ? AND cmdline = ?
		ORDER BY recorded DESC LIMIT 1`), agent, running).Scan(&base)
	if errors.Is(err, sql.ErrNoRows) {
		return running, nil
	}
	return base, err
}

// recordBoot inserts job id's boot record.
func (l *Lab) recordBoot(ctx context.Context, id int64, agent string, r bootRecord) error {
	_, err := l.db.ExecContext(ctx, q(l.pg, `INSERT INTO lab_boots (job_id, agent, kernel, release, cmdline, base, boot_id, deadline, recorded)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), id, agent, r.Kernel, r.Release, r.Cmdline, r.Base, r.BootID, r.Deadline.UnixNano(), time.Now().UnixNano())
	return err
}

// bootRecord reads job id's boot record, nil when it has none.
func (l *Lab) bootRecord(ctx context.Context, id int64) (*bootRecord, error) {
	var r bootRecord
	var deadline int64
	err := l.db.QueryRowContext(ctx, q(l.pg, "SELECT kernel, release, cmdline, boot_id, deadline FROM lab_boots WHERE job_id = ?"), id).
		Scan(&r.Kernel, &r.Release, &r.Cmdline, &r.BootID, &deadline)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r.Deadline = time.Unix(0, deadline)
	return &r, nil
}

// resumeBoots hands back at once the boot steps of the agent's queue that
// are still running: an agent starting has none running, so these are the
// boots its last life rebooted for, to be checked now rather than after a
// lease.
func (a *agent) resumeBoots(ctx context.Context) error {
	l := a.lab
	rows, err := l.db.QueryContext(ctx, q(l.pg, `SELECT j.id, j.attempt FROM river_job j JOIN lab_boots b ON b.job_id = j.id
		WHERE j.queue = ? AND j.state = 'running'`), a.queue)
	if err != nil {
		return err
	}
	var jobs []*rivertype.JobRow
	for rows.Next() {
		var j rivertype.JobRow
		if err := rows.Scan(&j.ID, &j.Attempt); err != nil {
			rows.Close()
			return err
		}
		jobs = append(jobs, &j)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, j := range jobs {
		if n, err := l.handBack(ctx, j); err != nil {
			return err
		} else if n > 0 {
			a.logf("job %d: back from its boot: checking the kernel", j.ID)
		}
	}
	return nil
}

// checkBoot refuses a boot step the agent cannot run as given.
func checkBoot(j JobArgs) error {
	b := j.Boot
	if b == nil {
		return nil
	}
	if j.Command != "run" && j.Command != "ab" && j.Command != "stat" {
		return fmt.Errorf("submit: --kexec boots a kernel for run, ab or stat, not %s", j.Command)
	}
	for _, f := range []struct{ flag, path string }{{"--kexec", b.Kernel}, {"--kexec-initrd", b.Initrd}} {
		if f.path != "" && !filepath.IsAbs(f.path) {
			return fmt.Errorf("submit: %s %s: give the file's absolute path on the agent's machine", f.flag, f.path)
		}
	}
	if b.Kernel == "" {
		return errors.New("submit: --kexec-initrd, --kexec-append and --boot-deadline go with --kexec IMAGE")
	}
	if b.Deadline < 0 {
		return fmt.Errorf("submit: --boot-deadline: must not be negative, got %s", b.Deadline)
	}
	return nil
}
