package knob

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/kdelta/kdelta/internal/sys"
)

// What kdelta reads back from its own state it checks against what it
// could have written: a restore journal is acted on only when every
// record in it passes the rule for what kdelta may write. The journal
// file and its directory must be the user's and writable by nobody else;
// knob paths are what --set accepts; a shield's cgroups are kdelta's own
// under a cgroup mount; IRQ affinities are /proc/irq's files. A journal
// that fails is set aside whole, and nothing in it is done.

// fileOps is every file operation that recovering a journal does —
// checking it, writing knobs back, taking a shield down — and the knob
// writes of a session. Tests replace it to record what would be touched.
type fileOps interface {
	Lstat(p string) (fs.FileInfo, error)
	ReadFile(p string) ([]byte, error)
	EvalSymlinks(p string) (string, error)
	// WriteFile writes b to an existing file in one write, truncating
	// it; it never creates one.
	WriteFile(p string, b []byte) error
	Rename(from, to string) error
	// Rmdir removes an empty directory (a cgroup), never a file.
	Rmdir(p string) error
	// Remove unlinks a journal.
	Remove(p string) error
	SetAffinity(tid int, cpus []int) error
}

// fsys is the seam every such operation goes through.
var fsys fileOps = osOps{}

type osOps struct{}

func (osOps) Lstat(p string) (fs.FileInfo, error)   { return os.Lstat(p) }
func (osOps) ReadFile(p string) ([]byte, error)     { return os.ReadFile(p) }
func (osOps) EvalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }
func (osOps) Rename(from, to string) error          { return os.Rename(from, to) }
func (osOps) Remove(p string) error                 { return syscall.Unlink(p) }
func (osOps) SetAffinity(tid int, cpus []int) error { return sys.SetAffinity(tid, cpus) }

func (osOps) Rmdir(p string) error {
	if err := syscall.Rmdir(p); err != nil {
		return &fs.PathError{Op: "rmdir", Path: p, Err: err}
	}
	return nil
}

func (osOps) WriteFile(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// A journalError says which record of a journal broke which rule.
type journalError struct {
	record, rule string
}

func (e *journalError) Error() string { return e.record + ": " + e.rule }

func broke(record, format string, args ...any) error {
	return &journalError{record: record, rule: fmt.Sprintf(format, args...)}
}

// checkOwner checks that p is a directory (wantDir) or a regular file of
// this user that nobody else may write.
func checkOwner(what, p string, wantDir bool) error {
	fi, err := fsys.Lstat(p)
	if err != nil {
		return broke(what, "%v", unwrapPath(err))
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return broke(what, "is a symbolic link")
	case wantDir && !fi.IsDir():
		return broke(what, "is not a directory")
	case !wantDir && !fi.Mode().IsRegular():
		return broke(what, "is not a regular file")
	case fi.Mode().Perm()&0o022 != 0:
		return broke(what, "is writable by group or others (mode %04o)", fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return broke(what, "is owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid())
	}
	return nil
}

// checkJournalDir checks the directory of restore journals.
func checkJournalDir(dir string) error {
	return checkOwner("restore journal directory "+dir, dir, true)
}

// A validator checks a journal's records against what kdelta could have
// written on the machine under root ("/" but in tests).
type validator struct {
	root string
	// tracefs is $KDELTA_TRACEFS, the tracefs directory that the tests
	// give --funclatency (and so kdelta restore): the tracefs files it
	// holds are what a kdelta of the same environment writes.
	tracefs string
}

// at is p on the machine: root joined.
func (v validator) at(p string) string { return filepath.Join(v.root, p) }

// rel is the machine's path of p, a path under root; ok is false when p
// is not under root.
func (v validator) rel(p string) (string, bool) {
	r := filepath.Clean(v.root)
	if r == "/" {
		return p, true
	}
	if rest, ok := strings.CutPrefix(p, r); ok && (rest == "" || rest[0] == '/') {
		if rest == "" {
			rest = "/"
		}
		return rest, true
	}
	return "", false
}

// clean refuses a path that is not absolute and clean.
func clean(p string) bool {
	return filepath.IsAbs(p) && filepath.Clean(p) == p && !strings.ContainsAny(p, "\n\x00")
}

// resolvesUnder checks that p, when it exists, leads through no symbolic
// link out of one of dirs.
func resolvesUnder(p string, dirs ...string) error {
	real, err := fsys.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if under(real, d) {
			return nil
		}
	}
	return fmt.Errorf("leads to %q", real)
}

// checkKnob is --set's rule for a knob entry: a clean path under /sys or
// /proc/sys that leads nowhere else, and a value of one line.
func (v validator) checkKnob(what string, e Entry) error {
	if !clean(e.Path) {
		return broke(what, "path %q is not a clean absolute path", e.Path)
	}
	if v.tracefs != "" && strings.HasPrefix(e.Key, "tracefs.") && under(e.Path, v.tracefs) {
		if err := resolvesUnder(e.Path, v.tracefs); err != nil {
			return broke(what, "path %q %v, outside $KDELTA_TRACEFS", e.Path, err)
		}
		return checkValues(what, e)
	}
	rel, ok := v.rel(e.Path)
	if !ok {
		return broke(what, "path %q is outside %s", e.Path, v.root)
	}
	if _, err := Lookup(rel); err != nil {
		return broke(what, "path %q is not a knob kdelta writes (only files under /sys and /proc/sys)", e.Path)
	}
	if err := resolvesUnder(e.Path, v.at("sys"), v.at("proc/sys")); err != nil {
		return broke(what, "path %q %v, outside /sys and /proc/sys", e.Path, err)
	}
	return checkValues(what, e)
}

// checkValues: a knob entry's values are of one line.
func checkValues(what string, e Entry) error {
	for _, val := range append([]string{e.Value}, e.Set...) {
		if strings.ContainsAny(val, "\n\x00") {
			return broke(what, "value %q holds a newline or NUL", val)
		}
	}
	return nil
}

var irqFile = regexp.MustCompile(`^/proc/irq/([0-9]+/smp_affinity(_list)?|default_smp_affinity)$`)

// checkIRQ: an IRQ entry is one of /proc/irq's affinity files, holding a
// CPU list or mask.
func (v validator) checkIRQ(what string, e Entry) error {
	rel, ok := v.rel(e.Path)
	if !clean(e.Path) || !ok || !irqFile.MatchString(rel) {
		return broke(what, "path %q is not an IRQ affinity file (/proc/irq/N/smp_affinity, /proc/irq/N/smp_affinity_list or /proc/irq/default_smp_affinity)", e.Path)
	}
	if err := resolvesUnder(e.Path, v.at("proc/irq")); err != nil {
		return broke(what, "path %q %v, outside /proc/irq", e.Path, err)
	}
	if e.Value == "" || strings.Trim(e.Value, "0123456789abcdefABCDEF,-") != "" {
		return broke(what, "value %q is not a CPU list or mask", e.Value)
	}
	return nil
}

// cgroupMounts reads root's /proc/self/mountinfo: the mount points of
// cgroup v1 hierarchies with the cpuset controller and of cgroup v2.
func (v validator) cgroupMounts() (v1, v2 []string, err error) {
	p := v.at("proc/self/mountinfo")
	b, err := fsys.ReadFile(p)
	if err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - TYPE SOURCE SUPEROPTS
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		mnt := v.at(unescapeMount(f[4]))
		switch g[0] {
		case "cgroup":
			for _, o := range strings.Split(g[2], ",") {
				if o == "cpuset" {
					v1 = append(v1, mnt)
				}
			}
		case "cgroup2":
			v2 = append(v2, mnt)
		}
	}
	return v1, v2, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// checkShield: the shield's root is a cgroup mount of its mechanism, its
// cgroups are the ones kdelta makes right under it, and its CPU lists and
// task records are well formed.
func (v validator) checkShield(sh *shieldRecord) error {
	if !clean(sh.Root) {
		return broke("shield.root", "%q is not a clean absolute path", sh.Root)
	}
	v1, v2, err := v.cgroupMounts()
	if err != nil {
		return broke("shield.root", "which cgroups are mounted is unknown: %v", err)
	}
	var mounts []string
	switch sh.Mechanism {
	case MechanismV1:
		mounts = v1
	case MechanismV2:
		mounts = v2
	default:
		return broke("shield.mechanism", "%q is neither %q nor %q", sh.Mechanism, MechanismV1, MechanismV2)
	}
	mounted := false
	for _, m := range mounts {
		mounted = mounted || m == sh.Root
	}
	if !mounted {
		return broke("shield.root", "%q is not a mount point of a %s (per %s)", sh.Root, sh.Mechanism, v.at("proc/self/mountinfo"))
	}
	if real, err := fsys.EvalSymlinks(sh.Root); err != nil || real != sh.Root {
		return broke("shield.root", "%q is not a directory reached without symbolic links", sh.Root)
	}
	if sh.Proc != v.at("proc") {
		return broke("shield.proc", "%q is not %s", sh.Proc, v.at("proc"))
	}
	for i, list := range []string{sh.CPUs, sh.Others} {
		if _, err := sys.ParseCPUList(list); err != nil {
			return broke([]string{"shield.cpus", "shield.others"}[i], "%v", err)
		}
	}
	names := []string{SystemCpuset, ShieldCpuset}
	if sh.Mechanism == MechanismV2 {
		names = []string{ShieldCpuset}
	}
	for i, d := range sh.Made {
		what := fmt.Sprintf("shield.made[%d]", i)
		ok := clean(d) && filepath.Dir(d) == sh.Root
		if ok {
			ok = false
			for _, n := range names {
				ok = ok || filepath.Base(d) == n
			}
		}
		if !ok {
			return broke(what, "%q is not a cgroup kdelta makes (%s right under %s)", d, strings.Join(names, " or "), sh.Root)
		}
		fi, err := fsys.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue // taken down already
		}
		if err != nil || !fi.IsDir() {
			return broke(what, "%q is not a directory", d)
		}
		if _, err := fsys.Lstat(filepath.Join(d, procsFile(sh.Mechanism))); err != nil {
			return broke(what, "%q is not a cgroup (no %s)", d, procsFile(sh.Mechanism))
		}
	}
	for i, t := range sh.Tasks {
		if _, err := sys.ParseCPUList(t.CPUs); err != nil || t.TID <= 0 {
			return broke(fmt.Sprintf("shield.tasks[%d]", i), "task %d on %q is not a task and a CPU list", t.TID, t.CPUs)
		}
	}
	for i, e := range sh.IRQs {
		if err := v.checkIRQ(fmt.Sprintf("shield.irqs[%d] %q", i, e.Key), e); err != nil {
			return err
		}
	}
	return nil
}

// check validates a whole journal record.
func (v validator) check(rec *record) error {
	if rec.Schema != JournalSchema {
		return broke("schema", "%q is not %s", rec.Schema, JournalSchema)
	}
	for i, e := range rec.Knobs {
		if err := v.checkKnob(fmt.Sprintf("knobs[%d] %q", i, e.Key), e); err != nil {
			return err
		}
	}
	if rec.Shield != nil {
		return v.checkShield(rec.Shield)
	}
	return nil
}
