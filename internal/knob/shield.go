package knob

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// The cpusets a cgroup v1 shield makes under the cpuset hierarchy's root,
// as cset shield makes "user" and "system": the shield, which holds the
// shielded CPUs exclusively, and the system set, which holds the other
// CPUs and every task that the kernel lets move.
const (
	ShieldCpuset = "kdelta.shield"
	SystemCpuset = "kdelta.system"
)

// Mechanisms of a shield, as the fingerprint names them.
const (
	MechanismV1 = "cgroup v1 cpuset"
	MechanismV2 = "cgroup v2 isolated partition"
)

// shieldRecord is what the restore journal keeps of a CPU shield: enough
// for a later kdelta to take it down after this one is killed.
type shieldRecord struct {
	CPUs      string `json:"cpus"`
	Mechanism string `json:"mechanism"`
	// Root is the cpuset hierarchy's root directory, which every task
	// goes back to; Proc is /proc.
	Root string `json:"root"`
	Proc string `json:"proc"`
	// Others are the CPUs of the system set.
	Others string `json:"others"`
	// EnabledCpuset says the shield enables cgroup v2's cpuset
	// controller for the root's children, which had it off, and
	// disables it again.
	EnabledCpuset bool `json:"enabled_cpuset,omitempty"`
	// Made are the cpusets the shield makes, in order; they are removed
	// in reverse.
	Made []string `json:"made"`
	// Tasks are the affinities of every task before the shield.
	Tasks []taskAffinity `json:"tasks"`
	// IRQs are the affinity files of every IRQ and the defaults for new
	// ones, with their values before the shield.
	IRQs []Entry `json:"irqs"`
}

// taskAffinity is one task's CPU affinity before the shield.
type taskAffinity struct {
	TID int `json:"tid"`
	// Start is the task's start time (field 22 of /proc/TID/stat), which
	// tells it from a later task given the same id.
	Start uint64 `json:"start"`
	CPUs  string `json:"cpus"`
}

// A shield is a session's CPU shield: planned and journalled when the
// session opens, raised by RaiseShield, taken down by Restore.
type shield struct {
	rec    shieldRecord
	cpus   []int
	others []int
	mems   string
	info   sysinfo.Shield
	raised bool
	made   int // cpusets raise made, of rec.Made
}

// planShield checks that this machine can shield cpus and takes the
// snapshot the journal keeps. It changes nothing. The error says why not,
// in one line.
func planShield(cpus []int, root string) (*shield, error) {
	name := "--shield " + sys.FormatCPUList(cpus)
	if len(cpus) == 0 {
		return nil, fmt.Errorf("--shield: no CPUs given")
	}
	onlineFile := filepath.Join(root, "sys/devices/system/cpu/online")
	b, err := os.ReadFile(onlineFile)
	if err != nil {
		return nil, fmt.Errorf("%s: which CPUs are online is unknown: %w", name, err)
	}
	online, err := sys.ParseCPUList(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", name, onlineFile, err)
	}
	for _, c := range cpus {
		if !slices.Contains(online, c) {
			return nil, fmt.Errorf("%s: CPU %d is not online (online: %s)", name, c, sys.FormatCPUList(online))
		}
	}
	var others []int
	for _, c := range online {
		if !slices.Contains(cpus, c) {
			others = append(others, c)
		}
	}
	if len(others) == 0 {
		return nil, fmt.Errorf("%s: leaves no CPU for the rest of the system (online: %s)", name, sys.FormatCPUList(online))
	}
	mech, dir, err := cpusetHierarchy(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("%s: needs root (it moves every task and IRQ of the machine off the CPUs)", name)
	}
	sh := &shield{cpus: cpus, others: others}
	sh.rec = shieldRecord{CPUs: sys.FormatCPUList(cpus), Mechanism: mech, Root: dir, Proc: filepath.Join(root, "proc"), Others: sys.FormatCPUList(others)}
	made := []string{SystemCpuset, ShieldCpuset}
	if mech == MechanismV2 {
		// A partition takes its CPUs from every other cgroup: nothing
		// to move tasks to.
		made = []string{ShieldCpuset}
	}
	for _, n := range made {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err == nil {
			return nil, fmt.Errorf("%s: cgroup %s exists already, and no kdelta's journal holds it (rmdir it once its tasks are moved out)", name, p)
		}
		sh.rec.Made = append(sh.rec.Made, p)
	}
	rootCPUs, err := readCPUList(filepath.Join(dir, effectiveCPUs(mech)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, c := range cpus {
		if !slices.Contains(rootCPUs, c) {
			return nil, fmt.Errorf("%s: CPU %d is not in the root cpuset (%s)", name, c, sys.FormatCPUList(rootCPUs))
		}
	}
	if mech == MechanismV2 {
		ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		sh.rec.EnabledCpuset = !slices.Contains(strings.Fields(string(ctl)), "cpuset")
	} else {
		mems, err := os.ReadFile(filepath.Join(dir, "cpuset.mems"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		sh.mems = strings.TrimSpace(string(mems))
	}
	sh.rec.Tasks = taskAffinities(root)
	sh.rec.IRQs = irqAffinities(root)
	sh.info = sysinfo.Shield{CPUs: sh.rec.CPUs, Mechanism: mech}
	return sh, nil
}

// cpusetHierarchy finds the cpuset controller: the mount point of a cgroup
// v1 hierarchy that has it, or a cgroup v2 mount that offers it.
func cpusetHierarchy(root string) (mech, dir string, err error) {
	f, err := os.Open(filepath.Join(root, "proc/self/mounts"))
	if err != nil {
		return "", "", fmt.Errorf("no cpuset controller found: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 4 {
			continue
		}
		mnt := filepath.Join(root, fl[1])
		switch fl[2] {
		case "cgroup":
			if slices.Contains(strings.Split(fl[3], ","), "cpuset") {
				return MechanismV1, mnt, nil
			}
		case "cgroup2":
			if b, err := os.ReadFile(filepath.Join(mnt, "cgroup.controllers")); err == nil && slices.Contains(strings.Fields(string(b)), "cpuset") {
				mech, dir = MechanismV2, mnt
			}
		}
	}
	if mech != "" {
		return mech, dir, nil
	}
	return "", "", errors.New("no cpuset controller here (no cgroup v1 cpuset hierarchy is mounted, and no cgroup v2 mount offers cpuset)")
}

// raise moves every task and IRQ it can off the shield's CPUs.
func (sh *shield) raise() error {
	sh.raised = true
	var err error
	if sh.rec.Mechanism == MechanismV2 {
		err = sh.raiseV2()
	} else {
		err = sh.raiseV1()
	}
	if err != nil {
		return err
	}
	sh.info.IRQsMoved, sh.info.IRQsRefused = sh.moveIRQs()
	return nil
}

// raiseV1 makes the system and shield cpusets and moves every task of
// the root cpuset that the kernel lets move into the system set.
func (sh *shield) raiseV1() error {
	sysDir, shDir := sh.rec.Made[0], sh.rec.Made[1]
	for _, c := range []struct {
		dir, cpus string
		exclusive bool
	}{{sysDir, sys.FormatCPUList(sh.others), false}, {shDir, sh.rec.CPUs, true}} {
		if err := sh.mkdir(c.dir); err != nil {
			return err
		}
		if err := cgWrite(c.dir, "cpuset.cpus", c.cpus); err != nil {
			return err
		}
		if err := cgWrite(c.dir, "cpuset.mems", sh.mems); err != nil {
			return err
		}
		if c.exclusive {
			if err := cgWrite(c.dir, "cpuset.cpu_exclusive", "1"); err != nil {
				return fmt.Errorf("%w (another cpuset shares the CPUs?)", err)
			}
		}
	}
	sh.info.TasksMoved, sh.info.TasksRefused = moveTasks(filepath.Join(sh.rec.Root, "tasks"), filepath.Join(sysDir, "tasks"))
	return nil
}

// raiseV2 makes the shield an isolated partition: its CPUs leave every
// other cgroup's effective CPUs, so every task that may leave them does,
// and the scheduler balances no load onto them. The cpuset controller is
// enabled for the root's children first when it is not.
func (sh *shield) raiseV2() error {
	// The cgroup first, then the controller: a kdelta killed between
	// the two leaves a cgroup, which tells the next one to undo both.
	d := sh.rec.Made[0]
	if err := sh.mkdir(d); err != nil {
		return err
	}
	if sh.rec.EnabledCpuset {
		if err := cgWrite(sh.rec.Root, "cgroup.subtree_control", "+cpuset"); err != nil {
			return err
		}
	}
	if err := cgWrite(d, "cpuset.cpus", sh.rec.CPUs); err != nil {
		return err
	}
	if err := cgWrite(d, "cpuset.cpus.partition", "isolated"); err != nil {
		return fmt.Errorf("%w (a kernel before 6.1 has no isolated partitions)", err)
	}
	b, err := os.ReadFile(filepath.Join(d, "cpuset.cpus.partition"))
	if err != nil {
		return fmt.Errorf("--shield %s: %w", sh.rec.CPUs, err)
	}
	if got := strings.TrimSpace(string(b)); got != "isolated" {
		// "isolated invalid (Cpu list in cpuset.cpus not exclusive)"
		return fmt.Errorf("--shield %s: the kernel did not make %s an isolated partition: %s", sh.rec.CPUs, d, got)
	}
	// What moved is what could run on the CPUs before and cannot now.
	for _, t := range sh.rec.Tasks {
		before, err := sys.ParseCPUList(t.CPUs)
		if err != nil || !overlaps(before, sh.cpus) {
			continue
		}
		now, start, ok := readTask(filepath.Join(sh.rec.Proc, strconv.Itoa(t.TID)))
		if !ok || start != t.Start {
			continue
		}
		if overlaps(now, sh.cpus) {
			sh.info.TasksRefused++
		} else {
			sh.info.TasksMoved++
		}
	}
	return nil
}

// mkdir makes one of the shield's cgroups.
func (sh *shield) mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Made since planShield looked: another shield's, which
			// taking this one down must not remove.
			return fmt.Errorf("--shield %s: %s was made meanwhile, by another kdelta's shield?", sh.rec.CPUs, dir)
		}
		return fmt.Errorf("--shield %s: %w", sh.rec.CPUs, err)
	}
	sh.made++
	return nil
}

// effectiveCPUs names the file of a cpuset's CPUs in effect.
func effectiveCPUs(mech string) string {
	if mech == MechanismV2 {
		return "cpuset.cpus.effective"
	}
	return "cpuset.effective_cpus"
}

// procsFile names the file that lists a cgroup's tasks and takes one to
// move: v1 moves single tasks, v2 whole processes.
func procsFile(mech string) string {
	if mech == MechanismV2 {
		return "cgroup.procs"
	}
	return "tasks"
}

// moveTasks moves every task listed in from into the cgroup whose tasks
// file is to, pass after pass while tasks keep appearing (a task that
// forks while it is moved leaves its child behind). It returns how many
// moved and how many the kernel kept (kernel threads bound to a CPU).
func moveTasks(from, to string) (moved, refused int) {
	done, kept := map[int]bool{}, map[int]bool{}
	for pass := 0; pass < 10; pass++ {
		progress := false
		for _, t := range readTasks(from) {
			if kept[t] || done[t] {
				continue
			}
			if err := writeInt(to, t); err != nil {
				if !errors.Is(err, syscall.ESRCH) {
					kept[t] = true
				}
				continue
			}
			done[t], progress = true, true
		}
		if !progress {
			break
		}
	}
	left := 0
	for _, t := range readTasks(from) {
		if kept[t] {
			left++
		}
	}
	return len(done), left
}

// moveIRQs moves the affinity of every IRQ that may run on the shield's
// CPUs to its other CPUs, or to the system's when it has none, and points
// the default affinity of new IRQs at the system's CPUs.
func (sh *shield) moveIRQs() (moved, refused int) {
	for _, e := range sh.rec.IRQs {
		target, ok := irqTarget(e, sh.cpus, sh.others)
		if !ok {
			continue
		}
		if filepath.Base(e.Path) == "default_smp_affinity" {
			_ = writeFile(e.Path, target)
			continue
		}
		if err := writeFile(e.Path, target); err != nil {
			refused++
			continue
		}
		moved++
	}
	return moved, refused
}

// irqTarget is what a shield of cpus writes to the IRQ affinity file of
// e, which held e.Value before: its CPUs but the shield's, or the
// system's when none is left; the system's CPUs as the default. ok is
// false for an IRQ the shield leaves alone.
func irqTarget(e Entry, cpus, others []int) (target string, ok bool) {
	if filepath.Base(e.Path) == "default_smp_affinity" {
		return cpuMask(others), len(others) > 0
	}
	cur, err := sys.ParseCPUList(e.Value)
	if err != nil || !overlaps(cur, cpus) {
		return "", false
	}
	var t []int
	for _, c := range cur {
		if !slices.Contains(cpus, c) {
			t = append(t, c)
		}
	}
	if len(t) == 0 {
		t = others
	}
	return sys.FormatCPUList(t), true
}

// sameAffinity compares what an IRQ affinity file reads with a value
// written to it: masks without their commas and leading zeros (the
// kernel pads them to the CPUs it can have), lists as CPU sets.
func sameAffinity(path string) func(read, written string) bool {
	if filepath.Base(path) == "smp_affinity_list" {
		return func(a, b string) bool {
			x, err1 := sys.ParseCPUList(a)
			y, err2 := sys.ParseCPUList(b)
			return err1 == nil && err2 == nil && slices.Equal(x, y)
		}
	}
	norm := func(m string) string {
		m = strings.TrimLeft(strings.ToLower(strings.ReplaceAll(strings.TrimSpace(m), ",", "")), "0")
		if m == "" {
			return "0"
		}
		return m
	}
	return func(a, b string) bool { return norm(a) == norm(b) }
}

// A ShieldUndo says what taking a shield down did.
type ShieldUndo struct {
	CPUs, Mechanism string
	// TasksBack counts the tasks moved back to the root cpuset;
	// Affinities the tasks whose affinity was set back by hand (a kernel
	// that keeps each task's own mask across cpuset moves needs none);
	// IRQs the IRQ affinities written back.
	TasksBack, Affinities, IRQs int
	// KernelKept lists the kernel threads whose affinity the kernel
	// left changed and lets nobody set.
	KernelKept []string
	// HandSet lists the IRQ affinities found holding neither their old
	// value nor the shield's, set by hand since: they are kept.
	HandSet []Entry
}

// Kept says, one line each, which kernel threads the kernel left with
// other CPUs than before the shield.
func (u ShieldUndo) Kept() []string {
	var out []string
	for _, k := range u.KernelKept {
		out = append(out, fmt.Sprintf("the CPU shield on %s is down, but the kernel keeps %s and lets nobody set it", u.CPUs, k))
	}
	return out
}

// isKernelThread tells whether the task in dir is a kernel thread
// (PF_KTHREAD in the flags, field 9 of its stat).
func isKernelThread(dir string) bool {
	st, err := fsys.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(st), ')')
	f := strings.Fields(string(st[i+1:]))
	if i < 0 || len(f) < 7 {
		return false
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&0x00200000 != 0
}

// undoShield takes down the shield rec describes, as far as it was
// raised: every task back in the root cpuset, the cpusets removed, every
// task's affinity and every IRQ's as they were. It can be run again after
// a failure, and on a shield already down it changes nothing.
func undoShield(rec *shieldRecord) (ShieldUndo, error) {
	u := ShieldUndo{CPUs: rec.CPUs, Mechanism: rec.Mechanism}
	// A shield whose cpusets are gone was never raised, or was taken
	// down: the affinities are then the machine's own, whatever the
	// snapshot says. IRQs go first, tasks' affinities last, so that a
	// kdelta killed while it undoes leaves the cpusets for the next.
	raised := false
	for _, d := range rec.Made {
		if _, err := fsys.Lstat(d); err == nil {
			raised = true
		}
	}
	if !raised {
		return u, nil
	}
	var errs []error
	cpus, _ := sys.ParseCPUList(rec.CPUs)
	others, _ := sys.ParseCPUList(rec.Others)
	for _, e := range rec.IRQs {
		if _, err := fsys.Lstat(e.Path); err != nil {
			continue // the IRQ was freed meanwhile
		}
		// What the shield set, else only the old value: an IRQ holding
		// neither was set by hand since, and keeps what it holds.
		set := []string{e.Value}
		if t, ok := irqTarget(e, cpus, others); ok {
			set = []string{t}
		}
		changed, err := writeBackAs(e.Path, e.Value, set, sameAffinity(e.Path))
		if errors.Is(err, errHandSet) {
			u.HandSet = append(u.HandSet, e)
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%s: %w", e.Path, e.Value, err))
			continue
		}
		if changed && filepath.Base(e.Path) != "default_smp_affinity" {
			u.IRQs++
		}
	}
	rootTasks := filepath.Join(rec.Root, procsFile(rec.Mechanism))
	for i := len(rec.Made) - 1; i >= 0; i-- {
		d := rec.Made[i]
		var err error
		for try := 0; try < 50; try++ {
			if _, serr := fsys.Lstat(d); errors.Is(serr, fs.ErrNotExist) {
				err = nil
				break
			}
			n, _ := moveTasks(filepath.Join(d, procsFile(rec.Mechanism)), rootTasks)
			u.TasksBack += n
			if err = fsys.Rmdir(d); err == nil {
				break
			}
			// A task that forked while its siblings moved, or one
			// exiting: the next pass takes it.
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("remove cpuset %s: %w", d, unwrapPath(err)))
		}
	}
	if rec.EnabledCpuset {
		if err := cgWrite(rec.Root, "cgroup.subtree_control", "-cpuset"); err != nil {
			errs = append(errs, err)
		}
	}
	all, err := readCPUList(filepath.Join(rec.Root, effectiveCPUs(rec.Mechanism)))
	if err != nil {
		errs = append(errs, err)
	}
	for _, t := range rec.Tasks {
		cur, start, ok := readTask(filepath.Join(rec.Proc, strconv.Itoa(t.TID)))
		if !ok || start != t.Start || sys.FormatCPUList(cur) == t.CPUs {
			continue
		}
		// Back in the root cpuset a task has all its CPUs unless the
		// kernel kept the mask it asked for: then the old mask is lost.
		// A task left with the system set's CPUs took them as its own
		// while shielded (a thread that saves and restores its
		// affinity). A mask the task set itself otherwise is its own,
		// and left alone.
		if !slices.Equal(cur, all) && sys.FormatCPUList(cur) != rec.Others {
			continue
		}
		want, err := sys.ParseCPUList(t.CPUs)
		if err != nil {
			continue
		}
		if err := fsys.SetAffinity(t.TID, want); err != nil {
			comm, _ := fsys.ReadFile(filepath.Join(rec.Proc, strconv.Itoa(t.TID), "comm"))
			what := fmt.Sprintf("task %d (%s, on CPUs %s, was on %s)", t.TID, strings.TrimSpace(string(comm)), sys.FormatCPUList(cur), t.CPUs)
			switch {
			case errors.Is(err, syscall.ESRCH):
			case errors.Is(err, syscall.EINVAL) && isKernelThread(filepath.Join(rec.Proc, strconv.Itoa(t.TID))):
				// A kernel thread whose CPUs the kernel manages
				// (PF_NO_SETAFFINITY): a workqueue rescuer that
				// cgroup v2 moved off an isolated partition, which
				// Linux 6.1 does not move back. Nobody may set it.
				u.KernelKept = append(u.KernelKept, what)
			default:
				errs = append(errs, fmt.Errorf("%s: %w", what, err))
			}
			continue
		}
		u.Affinities++
	}
	return u, errors.Join(errs...)
}

// taskAffinities reads the affinity of every task under root's /proc.
func taskAffinities(root string) []taskAffinity {
	dirs, _ := filepath.Glob(filepath.Join(root, "proc/[0-9]*/task/[0-9]*"))
	out := make([]taskAffinity, 0, len(dirs))
	for _, d := range dirs {
		tid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		cpus, start, ok := readTask(d)
		if !ok {
			continue
		}
		out = append(out, taskAffinity{TID: tid, Start: start, CPUs: sys.FormatCPUList(cpus)})
	}
	return out
}

// readTask reads a task's allowed CPUs and start time from its /proc
// directory.
func readTask(dir string) (cpus []int, start uint64, ok bool) {
	st, err := fsys.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return nil, 0, false
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields start after the last ')'. starttime is field 22, the
	// 20th after the name.
	i := strings.LastIndexByte(string(st), ')')
	if i < 0 {
		return nil, 0, false
	}
	f := strings.Fields(string(st[i+1:]))
	if len(f) < 20 {
		return nil, 0, false
	}
	if start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return nil, 0, false
	}
	status, err := fsys.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return nil, 0, false
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, found := strings.CutPrefix(l, "Cpus_allowed_list:"); found {
			cpus, err = sys.ParseCPUList(v)
			return cpus, start, err == nil
		}
	}
	return nil, 0, false
}

// irqAffinities reads every IRQ's affinity list under root's /proc/irq,
// and the default affinity of new IRQs.
func irqAffinities(root string) []Entry {
	files, _ := filepath.Glob(filepath.Join(root, "proc/irq/[0-9]*/smp_affinity_list"))
	files = append(files, filepath.Join(root, "proc/irq/default_smp_affinity"))
	var out []Entry
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		key := "irq." + filepath.Base(filepath.Dir(p))
		if filepath.Base(p) == "default_smp_affinity" {
			key = "irq.default"
		}
		out = append(out, Entry{Key: key, Path: p, Value: strings.TrimSpace(string(b))})
	}
	return out
}

// cpuMask writes cpus as the kernel's hexadecimal mask, in 32-bit words
// separated by commas, the highest first ("1", "3", "1,00000000").
func cpuMask(cpus []int) string {
	top := slices.Max(cpus)
	words := make([]uint32, top/32+1)
	for _, c := range cpus {
		words[c/32] |= 1 << (c % 32)
	}
	var b strings.Builder
	for i := len(words) - 1; i >= 0; i-- {
		if b.Len() == 0 {
			fmt.Fprintf(&b, "%x", words[i])
		} else {
			fmt.Fprintf(&b, ",%08x", words[i])
		}
	}
	return b.String()
}

func overlaps(a, b []int) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func readCPUList(p string) ([]int, error) {
	b, err := fsys.ReadFile(p)
	if err != nil {
		return nil, err
	}
	l, err := sys.ParseCPUList(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return l, nil
}

// readTasks reads a cgroup's tasks file: one task id a line.
func readTasks(p string) []int {
	b, err := fsys.ReadFile(p)
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// writeInt writes one number to a cgroup file in one write, as the kernel
// takes a task id.
func writeInt(p string, n int) error {
	return fsys.WriteFile(p, []byte(strconv.Itoa(n)))
}

// cgWrite writes a cpuset file, the error naming it.
func cgWrite(dir, name, v string) error {
	p := filepath.Join(dir, name)
	if err := writeFile(p, v); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}
