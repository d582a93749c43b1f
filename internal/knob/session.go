package knob

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// Options say where a Session's files and journal are.
type Options struct {
	// Root is prefixed to every knob path; "" or "/" is this machine.
	// Tests point it at a tree of plain files.
	Root string
	// JournalDir is where the restore journal goes; "" means JournalDir().
	JournalDir string
	// Command is recorded in the journal, for the human who finds it.
	Command []string
	// Shield, when set, are CPUs to shield for the session (see
	// RaiseShield).
	Shield []int
}

// A Session changes knobs and puts them back. Every file that any of its
// settings touches is read, checked for writing and journalled when the
// session opens, before anything is written.
type Session struct {
	files    []*file
	shield   *shield
	warnings []string
	journal  *journal
	closed   bool
}

// file is one knob file of a session.
type file struct {
	knob Knob
	path string // on this machine: the root joined
	orig string // the selected value before the session
	// value holds the file's content as read at open, for choices.
	value Value
	// sets are the values the session's settings may write.
	sets []string
}

// Open checks every knob of every group of settings (variants) on the
// running kernel — it exists, its value can be read back as one value, it
// can be opened for writing, the value is one it lists — and journals the
// current value of each before returning. None of the settings is
// written; the journals of kdeltas that are gone are restored first, so the
// values saved are the machine's own. The error names the knob and says
// why, in one line.
func Open(groups [][]Setting, opt Options) (*Session, error) {
	root := opt.Root
	if root == "" {
		root = "/"
	}
	s := &Session{}
	byPath := map[string]*file{}
	for _, g := range groups {
		for _, st := range g {
			paths, err := st.Knob.files(root)
			if err != nil {
				return nil, err
			}
			for _, p := range paths {
				f := byPath[p]
				if f == nil {
					if f, err = openFile(st.Knob, p, root); err != nil {
						return nil, err
					}
					byPath[p] = f
					s.files = append(s.files, f)
				}
				if err := f.accepts(st.Value); err != nil {
					return nil, fmt.Errorf("%s: %w", st, err)
				}
				if enc := st.Knob.encode(st.Value); !slices.Contains(f.sets, enc) {
					f.sets = append(f.sets, enc)
				}
			}
		}
	}
	if len(s.files) == 0 && opt.Shield == nil {
		return s, nil
	}
	dir, err := opt.journalDir()
	if err != nil {
		return nil, err
	}
	if err := recoverHeld(dir, root, byPath, opt.Shield); err != nil {
		return nil, err
	}
	// Re-read: a recovery may just have written a knob back.
	rec := record{Schema: JournalSchema, PID: os.Getpid(), Started: time.Now().UTC(), Command: opt.Command}
	for _, f := range s.files {
		v, err := readValue(f.path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.knob.Name, err)
		}
		f.orig = v.Selected
		rec.Knobs = append(rec.Knobs, Entry{Key: f.knob.Key, Path: f.path, Value: f.orig, Set: f.sets})
	}
	if opt.Shield != nil {
		// Planned after the recovery, which takes down the shield of a
		// kdelta that is gone, so the snapshot is the machine's own.
		sh, err := planShield(opt.Shield, root)
		if err != nil {
			return nil, err
		}
		s.shield, rec.Shield = sh, &sh.rec
	}
	j, err := createJournal(dir, rec)
	if err != nil {
		return nil, err
	}
	s.journal = j
	return s, nil
}

// journalDir is where the session's journal goes.
func (opt Options) journalDir() (string, error) {
	if opt.JournalDir != "" {
		return opt.JournalDir, nil
	}
	return JournalDir()
}

// recoverHeld restores the journals in dir of kdeltas that are gone, and
// refuses a file of byPath, or a shield when shield is set, that a running
// kdelta holds: it would be saved with that kdelta's value and then fought
// over. Restoring first makes what is saved after it the machine's own.
func recoverHeld(dir, root string, byPath map[string]*file, shield []int) error {
	_, holders, err := recoverAt(dir, root)
	if err != nil {
		return nil
	}
	for _, h := range holders {
		if h.PID == os.Getpid() {
			continue
		}
		for _, e := range h.Knobs {
			if f := byPath[e.Path]; f != nil {
				return fmt.Errorf("%s: kdelta pid %d is changing it now; wait for it to finish", f.knob.Name, h.PID)
			}
		}
		if h.Shield != "" && shield != nil {
			return fmt.Errorf("--shield %s: kdelta pid %d shields CPUs %s now; wait for it to finish", sys.FormatCPUList(shield), h.PID, h.Shield)
		}
	}
	return nil
}

// Hold journals files whose value to write back is given, not read:
// tracefs files whose content is not a value (set_ftrace_filter reads
// "#### all functions enabled ####" when empty, and an empty write empties
// it; buffer_size_kb reads "7 (expanded: 1408)"). Nothing is written now.
// Restore writes each entry's value back in the order given, as do the
// next kdelta to start after a crash or SIGKILL and kdelta restore; a file
// that a running kdelta holds is refused, as Open refuses it. Paths are
// absolute, under /sys (Options.Root is only the root that the journals
// recovered first are checked against; Options.Shield is not used).
func Hold(entries []Entry, opt Options) (*Session, error) {
	s := &Session{}
	byPath := map[string]*file{}
	rec := record{Schema: JournalSchema, PID: os.Getpid(), Started: time.Now().UTC(), Command: opt.Command}
	for _, e := range entries {
		k := Knob{Name: e.Path, Key: e.Key, Path: e.Path, kind: plain}
		f := &file{knob: k, path: e.Path, orig: e.Value}
		s.files = append(s.files, f)
		byPath[e.Path] = f
		rec.Knobs = append(rec.Knobs, Entry{Key: e.Key, Path: e.Path, Value: e.Value})
	}
	if len(s.files) == 0 {
		return s, nil
	}
	dir, err := opt.journalDir()
	if err != nil {
		return nil, err
	}
	root := opt.Root
	if root == "" {
		root = "/"
	}
	if err := recoverHeld(dir, root, byPath, nil); err != nil {
		return nil, err
	}
	if s.journal, err = createJournal(dir, rec); err != nil {
		return nil, err
	}
	return s, nil
}

// files returns the files of k under root.
func (k Knob) files(root string) ([]string, error) {
	if k.kind == governor {
		ps, _ := filepath.Glob(filepath.Join(root, governorGlob))
		if len(ps) == 0 {
			ps, _ = filepath.Glob(filepath.Join(root, "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"))
		}
		if len(ps) == 0 {
			return nil, fmt.Errorf("%s: no cpufreq here (no %s)", k.Name, governorGlob)
		}
		sort.Strings(ps)
		return ps, nil
	}
	return []string{filepath.Join(root, k.Path)}, nil
}

// openFile checks one knob file and reads its value. The preemption mode
// lives in debugfs, which a fresh machine may not have mounted: as root,
// openFile mounts it as perf mounts tracefs (the fingerprint lists the
// mount), and unmounts it again when the file still does not answer
// (lockdown), so a refused knob changes nothing.
func openFile(k Knob, p, root string) (*file, error) {
	if k.kind != preempt || (root != "" && root != "/") {
		return readFile(k, p, root)
	}
	did, _ := sys.MountDebugfs()
	f, err := readFile(k, p, root)
	if err != nil && did {
		_ = sys.Unmount(sys.DebugfsDir)
	}
	return f, err
}

func readFile(k Knob, p, root string) (*file, error) {
	name := k.Name
	if p != filepath.Join(root, k.Path) {
		name = k.Name + " (" + p + ")"
	}
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %s", name, k.missing())
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// A symbolic link must not lead a knob out of /sys or /proc/sys.
	if real, err := filepath.EvalSymlinks(p); err == nil {
		r := filepath.Clean(root)
		if !under(real, filepath.Join(r, "sys")) && !under(real, filepath.Join(r, "proc", "sys")) {
			return nil, fmt.Errorf("%s: leads to %s, outside /sys and /proc/sys", name, real)
		}
	}
	v, err := readValue(p)
	if err != nil && k.kind == preempt && errors.Is(err, fs.ErrPermission) {
		return nil, fmt.Errorf("%s: %w (kernel lockdown restricts debugfs?)", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if k.kind == smt && (v.Selected == "notsupported" || v.Selected == "notimplemented" || v.Selected == "forceoff") {
		return nil, fmt.Errorf("%s: SMT cannot be switched here (%s: %s)", name, SMTPath, v.Selected)
	}
	w, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot be opened for writing: %w", name, unwrapPath(err))
	}
	w.Close()
	return &file{knob: k, path: p, orig: v.Selected, value: v}, nil
}

// missing says why a knob's file is absent.
func (k Knob) missing() string {
	switch k.kind {
	case selinux:
		return "SELinux is not enabled here (no " + SELinuxPath + ")"
	case preempt:
		return "no " + PreemptPath + " (debugfs not mounted, or a kernel without PREEMPT_DYNAMIC)"
	case smt:
		return "no " + SMTPath + " (a kernel without SMT control)"
	}
	return "no such knob"
}

// accepts checks a value against what the file lists.
func (f *file) accepts(v string) error {
	enc := f.knob.encode(v)
	switch {
	case f.knob.kind == governor:
		avail, err := os.ReadFile(filepath.Join(filepath.Dir(f.path), "scaling_available_governors"))
		if err == nil && !contains(strings.Fields(string(avail)), enc) {
			return fmt.Errorf("%w %q (this CPU offers: %s)", ErrBadValue, v, strings.TrimSpace(string(avail)))
		}
	case f.value.Choices != nil && !f.value.has(enc):
		return fmt.Errorf("%w %q (%s offers: %s)", ErrBadValue, v, f.knob.Path, strings.Join(f.value.Choices, " "))
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Apply gives every knob of the session the value the settings name, and
// every other knob of the session its value from before the session: a
// variant's environment is the machine's own plus its settings. Files that
// already hold the value are not written.
func (s *Session) Apply(settings []Setting) error {
	if s.closed {
		return errors.New("knob session already restored")
	}
	want := map[string]Setting{}
	for _, st := range settings {
		want[st.Knob.Path] = st
	}
	for _, f := range s.files {
		st, ok := want[f.knob.Path]
		target := f.orig
		if ok {
			target = st.Knob.encode(st.Value)
		}
		if err := f.set(target); err != nil {
			if ok {
				return fmt.Errorf("%s: %w", st, err)
			}
			return fmt.Errorf("restore %s=%s: %w", f.knob.Name, target, err)
		}
	}
	return nil
}

// set writes v unless the file holds it already.
func (f *file) set(v string) error {
	if cur, err := readValue(f.path); err == nil && same(cur.Selected, v) {
		return nil
	}
	return writeFile(f.path, v)
}

// Check applies each group of settings in turn and then restores every
// knob, so that a value the kernel refuses is found before anything is
// measured, and nothing is left changed when one is.
func (s *Session) Check(groups [][]Setting) error {
	for _, g := range groups {
		if err := s.Apply(g); err != nil {
			if rerr := s.putBack(); rerr != nil {
				return errors.Join(err, rerr)
			}
			return err
		}
	}
	return s.putBack()
}

// Values reads every knob of the session back: its key and the value in
// effect, for run records. A knob with several files (the governor) shows
// their distinct values joined by "/".
func (s *Session) Values() map[string]string {
	out := map[string]string{}
	seen := map[string]map[string]bool{}
	for _, f := range s.files {
		v := "unreadable"
		if val, err := readValue(f.path); err == nil {
			v = val.Selected
		}
		if seen[f.knob.Key] == nil {
			seen[f.knob.Key] = map[string]bool{}
		}
		if seen[f.knob.Key][v] {
			continue
		}
		seen[f.knob.Key][v] = true
		if prev, ok := out[f.knob.Key]; ok {
			v = prev + "/" + v
		}
		out[f.knob.Key] = v
	}
	return out
}

// putBack writes every file's old value back, keeping the session open.
func (s *Session) putBack() error {
	var errs []error
	for _, f := range s.files {
		if err := f.set(f.orig); err != nil {
			errs = append(errs, fmt.Errorf("restore %s=%s: %w", f.knob.Name, f.orig, err))
		}
	}
	return errors.Join(errs...)
}

// RaiseShield raises the session's CPU shield, if Options.Shield asked for
// one: every task the kernel lets move goes to a cpuset of the other CPUs,
// the shield's CPUs go to a cpuset of their own, held exclusively, and
// every IRQ affinity the kernel lets change leaves them. It returns what
// it did, for the fingerprint; nil without a shield. On error the shield
// is taken down again. Measured children start in the shield through
// ShieldCgroup.
func (s *Session) RaiseShield() (*sysinfo.Shield, error) {
	if s == nil || s.shield == nil {
		return nil, nil
	}
	if s.closed {
		return nil, errors.New("knob session already restored")
	}
	sh := s.shield
	if err := sh.raise(); err != nil {
		// Only what this raise made comes down.
		sh.rec.Made = sh.rec.Made[:sh.made]
		if _, uerr := undoShield(&sh.rec); uerr != nil {
			return nil, errors.Join(err, fmt.Errorf("take the shield down: %w", uerr))
		}
		sh.raised = false
		return nil, err
	}
	info := sh.info
	return &info, nil
}

// ShieldCgroup is the cgroup a measured child starts in, so that it and
// every task it makes run on the shield's CPUs; nil while no shield is
// raised.
func (s *Session) ShieldCgroup() *sys.SpawnCgroup {
	if s == nil || s.shield == nil || !s.shield.raised {
		return nil
	}
	if r := s.shield.rec; r.Mechanism == MechanismV2 {
		return &sys.SpawnCgroup{Dir: r.Made[0]}
	} else {
		return &sys.SpawnCgroup{Dir: r.Made[1], V1Home: r.Made[0]}
	}
}

// Restore writes every knob's old value back, takes the CPU shield down,
// and removes the journal. A knob or shield that cannot be put back
// leaves the journal in place, unlocked, for the next kdelta start or
// kdelta restore to try again. Restore may be called more than once;
// later calls do nothing.
func (s *Session) Restore() error {
	if s == nil || s.closed {
		return nil
	}
	s.closed = true
	err := s.putBack()
	if s.shield != nil && s.shield.raised {
		u, uerr := undoShield(&s.shield.rec)
		s.warnings = append(s.warnings, u.Kept()...)
		if uerr != nil {
			err = errors.Join(err, fmt.Errorf("CPU shield on %s: %w (kdelta restore tries again)", s.shield.rec.CPUs, uerr))
		}
	}
	if err != nil {
		s.journal.release()
		return err
	}
	s.journal.remove()
	return nil
}

// Warnings are what Restore could not put back and need not try again:
// kernel threads whose affinity the kernel keeps.
func (s *Session) Warnings() []string {
	if s == nil {
		return nil
	}
	return s.warnings
}

// readValue reads and parses a knob file.
func readValue(p string) (Value, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return Value{}, fmt.Errorf("cannot be read: %w", unwrapPath(err))
	}
	return ParseValue(string(b))
}

// writeFile writes v and a newline in one write, as echo does; sysfs
// takes one write as one value.
func writeFile(p, v string) error {
	err := fsys.WriteFile(p, []byte(v+"\n"))
	var pe *fs.PathError
	if err != nil && !(errors.As(err, &pe) && pe.Op == "open") {
		return fmt.Errorf("the kernel refused %q: %w", v, unwrapPath(err))
	}
	return unwrapPath(err)
}

// unwrapPath drops the *PathError wrapper, whose path the caller's
// message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
