package knob

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// recorder is the file seam of a test: it does what recovery asks on a
// fake root, refuses (and records as a violation) every write, rename,
// remove or affinity change outside what kdelta may touch there, and
// stands in for the kernel's rmdir of a cgroup, whose files go with it.
type recorder struct {
	osOps
	root, jdir string
	ops        []string
	violations []string
}

func (r *recorder) allowed(op, p string) bool {
	p = filepath.Clean(p)
	irq := regexp.MustCompile(`^/proc/irq/([0-9]+/smp_affinity(_list)?|default_smp_affinity)$`)
	rel := strings.TrimPrefix(p, r.root)
	switch op {
	case "write":
		return strings.HasPrefix(p, r.root+"/") && (under(rel, "/sys") || under(rel, "/proc/sys") || irq.MatchString(rel))
	case "rmdir":
		return rel == "/sys/fs/cgroup/cpuset/"+SystemCpuset || rel == "/sys/fs/cgroup/cpuset/"+ShieldCpuset
	case "rename", "remove":
		return filepath.Dir(p) == r.jdir && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".json.tmp") || strings.HasSuffix(p, ".json.bad"))
	}
	return false
}

func (r *recorder) check(op string, paths ...string) error {
	r.ops = append(r.ops, op+" "+strings.Join(paths, " "))
	for _, p := range paths {
		if !r.allowed(op, p) {
			r.violations = append(r.violations, op+" "+p)
			return &fs.PathError{Op: op, Path: p, Err: fs.ErrPermission}
		}
	}
	return nil
}

func (r *recorder) WriteFile(p string, b []byte) error {
	if err := r.check("write", p); err != nil {
		return err
	}
	return r.osOps.WriteFile(p, b)
}

func (r *recorder) Rename(from, to string) error {
	if err := r.check("rename", from, to); err != nil {
		return err
	}
	return r.osOps.Rename(from, to)
}

func (r *recorder) Remove(p string) error {
	if err := r.check("remove", p); err != nil {
		return err
	}
	return r.osOps.Remove(p)
}

func (r *recorder) Rmdir(p string) error {
	if err := r.check("rmdir", p); err != nil {
		return err
	}
	// The kernel removes a cgroup's files with it.
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		for _, f := range []string{"tasks", "cgroup.procs"} {
			os.Remove(filepath.Join(p, f))
		}
	}
	return r.osOps.Rmdir(p)
}

func (r *recorder) SetAffinity(tid int, cpus []int) error {
	r.ops = append(r.ops, fmt.Sprintf("affinity %d", tid))
	r.violations = append(r.violations, fmt.Sprintf("affinity of task %d", tid))
	return syscall.EPERM
}

// useRecorder makes rec the seam for the rest of the test.
func useRecorder(t testing.TB, rec *recorder) {
	old := fsys
	fsys = rec
	t.Cleanup(func() { fsys = old })
}

// shieldRoot lays out a fake machine with a cgroup v1 cpuset hierarchy
// at /sys/fs/cgroup/cpuset holding a raised shield of CPU 3 (the
// system set holds a task), an IRQ and the default affinity moved off
// CPU 3, and a transparent hugepage knob set to never.
func shieldRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	cg := "sys/fs/cgroup/cpuset/"
	files := map[string]string{
		"proc/self/mountinfo":                        "24 1 0:22 / /sys rw - sysfs sysfs rw\n33 30 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
		cg + "tasks":                                 "1\n",
		cg + "cgroup.procs":                          "1\n",
		cg + "cpuset.effective_cpus":                 "0-3\n",
		cg + SystemCpuset + "/tasks":                 "",
		cg + SystemCpuset + "/cgroup.procs":          "",
		cg + ShieldCpuset + "/tasks":                 "",
		cg + ShieldCpuset + "/cgroup.procs":          "",
		"proc/irq/5/smp_affinity_list":               "0-2\n",
		"proc/irq/default_smp_affinity":              "7\n",
		"sys/kernel/mm/transparent_hugepage/enabled": "always madvise [never]\n",
	}
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// goodJournal is the journal a kdelta that raised shieldRoot's shield
// and set the knob left, its paths under root.
func goodJournal(root string) record {
	cg := filepath.Join(root, "sys/fs/cgroup/cpuset")
	return record{
		Schema: JournalSchema, PID: 4242,
		Knobs: []Entry{{Key: "sys.kernel.mm.transparent_hugepage.enabled", Path: filepath.Join(root, "sys/kernel/mm/transparent_hugepage/enabled"), Value: "madvise", Set: []string{"never"}}},
		Shield: &shieldRecord{
			CPUs: "3", Mechanism: MechanismV1, Root: cg, Proc: filepath.Join(root, "proc"), Others: "0-2",
			Made:  []string{filepath.Join(cg, SystemCpuset), filepath.Join(cg, ShieldCpuset)},
			Tasks: []taskAffinity{{TID: 1, Start: 1, CPUs: "0-3"}},
			IRQs: []Entry{
				{Key: "irq.5", Path: filepath.Join(root, "proc/irq/5/smp_affinity_list"), Value: "0-3"},
				{Key: "irq.default", Path: filepath.Join(root, "proc/irq/default_smp_affinity"), Value: "f"},
			},
		},
	}
}

func writeJournal(t testing.TB, jdir string, rec any) string {
	t.Helper()
	var b []byte
	switch r := rec.(type) {
	case string:
		b = []byte(r)
	default:
		b, _ = json.Marshal(r)
	}
	p := filepath.Join(jdir, "4242.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRecoverGoodJournal: a journal that passes every rule is undone on
// the fake root, through the seam alone and within what may be touched.
func TestRecoverGoodJournal(t *testing.T) {
	root, jdir := shieldRoot(t), t.TempDir()
	rec := &recorder{root: root, jdir: jdir}
	useRecorder(t, rec)
	writeJournal(t, jdir, goodJournal(root))
	done, _, err := recoverAt(jdir, root)
	if err != nil || len(done) != 1 || done[0].Err != nil || done[0].SetAside {
		t.Fatalf("recoverAt: %+v, %v", done, err)
	}
	for p, want := range map[string]string{
		"sys/kernel/mm/transparent_hugepage/enabled": "madvise\n",
		"proc/irq/5/smp_affinity_list":               "0-3\n",
		"proc/irq/default_smp_affinity":              "f\n",
	} {
		if got := read(t, filepath.Join(root, p)); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
	for _, d := range []string{SystemCpuset, ShieldCpuset} {
		if _, err := os.Stat(filepath.Join(root, "sys/fs/cgroup/cpuset", d)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("cgroup %s not removed: %v", d, err)
		}
	}
	if len(rec.violations) > 0 {
		t.Errorf("touched what it may not: %v", rec.violations)
	}
	if js := journals(t, jdir); len(js) != 0 {
		t.Errorf("journal left: %v", js)
	}
}

// TestRecoverKeepsHandSetValues: a knob or IRQ that holds neither its old
// value nor the one kdelta set was changed by hand after the crash, and
// keeps it, with a warning each.
func TestRecoverKeepsHandSetValues(t *testing.T) {
	root, jdir := shieldRoot(t), t.TempDir()
	useRecorder(t, &recorder{root: root, jdir: jdir})
	thp := filepath.Join(root, "sys/kernel/mm/transparent_hugepage/enabled")
	irq := filepath.Join(root, "proc/irq/5/smp_affinity_list")
	os.WriteFile(thp, []byte("[always] madvise never\n"), 0o644)
	os.WriteFile(irq, []byte("1\n"), 0o644)
	writeJournal(t, jdir, goodJournal(root))
	done, _, err := recoverAt(jdir, root)
	if err != nil || len(done) != 1 || done[0].Err != nil {
		t.Fatalf("recoverAt: %+v, %v", done, err)
	}
	if got := read(t, thp); got != "[always] madvise never\n" {
		t.Errorf("hand-set knob overwritten: %q", got)
	}
	if got := read(t, irq); got != "1\n" {
		t.Errorf("hand-set IRQ affinity overwritten: %q", got)
	}
	// The default affinity still held what the shield set (0x7 as the
	// kernel pads it) and goes back.
	if got := read(t, filepath.Join(root, "proc/irq/default_smp_affinity")); got != "f\n" {
		t.Errorf("default affinity: %q, want f", got)
	}
	var warned []string
	for _, l := range done[0].Warnings() {
		if strings.Contains(l, "changed by hand") {
			warned = append(warned, l)
		}
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "transparent_hugepage") || !strings.Contains(warned[1], "irq.5") {
		t.Errorf("warnings: %q", done[0].Warnings())
	}
}

// TestRecoverSetsAsideBadJournals: a journal breaking any rule is renamed
// .bad with one warning naming the record and the rule, and nothing in it
// is done — no write, rename or remove but the journal's own rename.
func TestRecoverSetsAsideBadJournals(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(root, outside string, r *record)
		want   string
	}{
		{"issue 35: knob outside /sys", func(root, out string, r *record) {
			r.Knobs[0].Path = filepath.Join(out, "victim")
			r.Knobs[0].Value = "PWNED"
		}, `knobs\[0\] "sys.kernel.mm.transparent_hugepage.enabled": path ".*/victim" is outside`},
		{"knob with ..", func(root, out string, r *record) {
			r.Knobs[0].Path = filepath.Join(root, "sys") + "/../../victim"
		}, `is not a clean absolute path`},
		{"knob through a symlink out of /sys", func(root, out string, r *record) {
			os.Symlink(filepath.Join(out, "victim"), filepath.Join(root, "sys/kernel/link"))
			r.Knobs[0].Path = filepath.Join(root, "sys/kernel/link")
		}, `path ".*/sys/kernel/link" leads to ".*/victim", outside /sys and /proc/sys`},
		{"knob value with a newline", func(root, out string, r *record) {
			r.Knobs[0].Value = "madvise\nnever"
		}, `value "madvise\\nnever" holds a newline`},
		{"relative knob path", func(root, out string, r *record) {
			r.Knobs[0].Path = "victim"
		}, `path "victim" is not a clean absolute path`},
		{"IRQ path outside /proc/irq", func(root, out string, r *record) {
			r.Shield.IRQs[0].Path = filepath.Join(out, "victim")
		}, `shield.irqs\[0\] "irq.5": path ".*/victim" is not an IRQ affinity file`},
		{"IRQ path not an affinity file", func(root, out string, r *record) {
			r.Shield.IRQs[0].Path = filepath.Join(root, "proc/irq/5/spurious")
		}, `is not an IRQ affinity file`},
		{"made outside the cgroup mount", func(root, out string, r *record) {
			r.Shield.Made[0] = filepath.Join(out, "P")
		}, `shield.made\[0\]: ".*/P" is not a cgroup kdelta makes`},
		{"made a regular file under the mount", func(root, out string, r *record) {
			p := filepath.Join(r.Shield.Root, ShieldCpuset)
			os.RemoveAll(p)
			os.WriteFile(p, []byte("x"), 0o644)
		}, `shield.made\[1\]: ".*kdelta.shield" is not a directory`},
		{"root not a cgroup mount", func(root, out string, r *record) {
			r.Shield.Root = out
			r.Shield.Made = []string{filepath.Join(out, SystemCpuset)}
		}, `shield.root: ".*" is not a mount point of a cgroup v1 cpuset`},
		{"root a cgroup2 mount for v1", func(root, out string, r *record) {
			r.Shield.Root = filepath.Join(root, "sys/fs/cgroup/unified")
		}, `shield.root: ".*unified" is not a mount point of a cgroup v1 cpuset`},
		{"proc elsewhere", func(root, out string, r *record) {
			r.Shield.Proc = "/x"
		}, `shield.proc: "/x" is not`},
		{"empty system CPUs", func(root, out string, r *record) {
			r.Shield.Others = ""
		}, `shield.others: empty CPU list`},
		{"other schema", func(root, out string, r *record) {
			r.Schema = "x"
		}, `schema: "x" is not kdelta/restore/v1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, jdir, outside := shieldRoot(t), t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(outside, "victim"), []byte("mine\n"), 0o644)
			os.WriteFile(filepath.Join(outside, "P"), []byte("mine\n"), 0o644)
			rec := &recorder{root: root, jdir: jdir}
			useRecorder(t, rec)
			j := goodJournal(root)
			c.change(root, outside, &j)
			p := writeJournal(t, jdir, j)
			checkSetAside(t, rec, p, root, c.want)
			if got := read(t, filepath.Join(outside, "victim")); got != "mine\n" {
				t.Errorf("victim now holds %q", got)
			}
			if _, err := os.Stat(filepath.Join(outside, "P")); err != nil {
				t.Errorf("P: %v", err)
			}
		})
	}
}

// checkSetAside recovers jdir (holding journal p) and checks that p was
// set aside with one warning matching want and nothing else done.
func checkSetAside(t *testing.T, rec *recorder, p, root, want string) {
	t.Helper()
	before := snapshot(t, root)
	done, _, err := recoverAt(rec.jdir, root)
	if err != nil || len(done) != 1 || !done[0].SetAside {
		t.Fatalf("recoverAt: %+v, %v", done, err)
	}
	w := done[0].Warnings()
	if len(w) != 1 || !regexp.MustCompile(want).MatchString(w[0]) || !strings.Contains(w[0], "set aside as "+p+".bad, nothing in it done") {
		t.Errorf("warnings %q, want one matching %q", w, want)
	}
	if strings.Contains(w[0], "tries again") {
		t.Errorf("a set-aside journal promised to kdelta restore: %q", w[0])
	}
	if _, err := os.Stat(p + ".bad"); err != nil {
		t.Errorf("not renamed .bad: %v", err)
	}
	if len(rec.ops) != 1 || !strings.HasPrefix(rec.ops[0], "rename ") {
		t.Errorf("file operations beyond setting it aside: %q", rec.ops)
	}
	if after := snapshot(t, root); after != before {
		t.Errorf("the fake root changed:\n%s\nwas\n%s", after, before)
	}
	// Set aside once: the next start finds nothing.
	if done, _, err := recoverAt(rec.jdir, root); err != nil || len(done) != 0 {
		t.Errorf("second recoverAt: %+v, %v", done, err)
	}
}

// snapshot lists every file under root with its content.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fmt.Fprintf(&b, "%s", p)
		if d.Type().IsRegular() {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", c)
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

// TestRecoverIssue40Repro is issue 40's planted journal, its paths made
// absolute in a temporary directory: V keeps its content, P stays.
func TestRecoverIssue40Repro(t *testing.T) {
	root, jdir, dir := shieldRoot(t), t.TempDir(), t.TempDir()
	for _, f := range []string{"V", "P"} {
		os.WriteFile(filepath.Join(dir, f), []byte("mine\n"), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "R"), 0o755)
	rec := &recorder{root: root, jdir: jdir}
	useRecorder(t, rec)
	j := strings.NewReplacer("R", filepath.Join(dir, "R"), "P", filepath.Join(dir, "P"), "V", filepath.Join(dir, "V")).Replace(
		`{"schema":"kdelta/restore/v1","pid":1,"knobs":[],"shield":{"cpus":"1","mechanism":"cgroup v1 cpuset","root":"R","proc":"/x","others":"0","made":["P"],"tasks":[],"irqs":[{"key":"i","path":"V","value":"PWNED"}]}}`)
	p := writeJournal(t, jdir, j)
	checkSetAside(t, rec, p, root, `shield.root: ".*/R" is not a mount point of a cgroup v1 cpuset`)
	if got := read(t, filepath.Join(dir, "V")); got != "mine\n" {
		t.Errorf("V holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "P")); err != nil {
		t.Errorf("P: %v", err)
	}
}

// TestRecoverChecksOwnership: a journal others may write, or not the
// user's, is set aside; a directory others may write is left alone.
func TestRecoverChecksOwnership(t *testing.T) {
	t.Run("journal writable by group", func(t *testing.T) {
		root, jdir := shieldRoot(t), t.TempDir()
		rec := &recorder{root: root, jdir: jdir}
		useRecorder(t, rec)
		p := writeJournal(t, jdir, goodJournal(root))
		os.Chmod(p, 0o620)
		checkSetAside(t, rec, p, root, `restore journal: is writable by group or others \(mode 0620\)`)
	})
	t.Run("journal of another user", func(t *testing.T) {
		testenv.NeedRoot(t, "chown")
		root, jdir := shieldRoot(t), t.TempDir()
		rec := &recorder{root: root, jdir: jdir}
		useRecorder(t, rec)
		p := writeJournal(t, jdir, goodJournal(root))
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		checkSetAside(t, rec, p, root, `restore journal: is owned by uid 65534, not by this user \(uid 0\)`)
	})
	t.Run("directory writable by others", func(t *testing.T) {
		root, jdir := shieldRoot(t), t.TempDir()
		rec := &recorder{root: root, jdir: jdir}
		useRecorder(t, rec)
		p := writeJournal(t, jdir, goodJournal(root))
		os.Chmod(jdir, 0o777)
		done, _, err := recoverAt(jdir, root)
		if err == nil || len(done) != 0 || !strings.Contains(err.Error(), "is writable by group or others (mode 0777): its journals are not acted on") {
			t.Errorf("recoverAt: %+v, %v", done, err)
		}
		if len(rec.ops) != 0 {
			t.Errorf("file operations in an untrusted directory: %q", rec.ops)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("journal moved: %v", err)
		}
		// Nor does a session journal there.
		if _, err := Open([][]Setting{settings(t, "/sys/kernel/mm/transparent_hugepage/enabled=never")}, Options{Root: root, JournalDir: jdir}); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
			t.Errorf("Open with a journal directory others may write: %v", err)
		}
	})
}

// TestRecoverCorruptNotPromised: an unreadable journal is set aside, and
// the warning does not send the user to kdelta restore.
func TestRecoverCorruptNotPromised(t *testing.T) {
	root, jdir := shieldRoot(t), t.TempDir()
	rec := &recorder{root: root, jdir: jdir}
	useRecorder(t, rec)
	p := writeJournal(t, jdir, `{"schema":`)
	checkSetAside(t, rec, p, root, `restore journal: unreadable: unexpected end of JSON input`)
}

// FuzzJournal: whatever a journal holds, recovering it writes, renames
// and removes nothing but the fake root's knob, IRQ and cgroup files and
// the journal itself. @ROOT@ in the input stands for the fake root.
func FuzzJournal(f *testing.F) {
	seed := goodJournal("@ROOT@")
	b, _ := json.Marshal(seed)
	f.Add(b)
	f.Add([]byte(`{"schema":"kdelta/restore/v1","pid":1,"knobs":[],"shield":{"cpus":"1","mechanism":"cgroup v1 cpuset","root":"R","proc":"/x","others":"0","made":["P"],"tasks":[],"irqs":[{"key":"i","path":"V","value":"PWNED"}]}}`))
	f.Add([]byte(`{"schema":"kdelta/restore/v1","pid":1,"knobs":[{"key":"k","path":"@ROOT@/sys/../../tmp/victim","value":"PWNED"}]}`))
	f.Add([]byte(`{"schema":"kdelta/restore/v1","pid":1,"knobs":[{"key":"k","path":"@ROOT@/proc/sys/kernel/x","value":"1"}],"shield":{"cpus":"3","mechanism":"cgroup v2 isolated partition","root":"@ROOT@/sys/fs/cgroup/unified","proc":"@ROOT@/proc","others":"0-2","made":["@ROOT@/sys/fs/cgroup/unified/kdelta.shield"],"enabled_cpuset":true}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		root, jdir := shieldRoot(t), t.TempDir()
		rec := &recorder{root: root, jdir: jdir}
		useRecorder(t, rec)
		os.WriteFile(filepath.Join(jdir, "7.json"), []byte(strings.ReplaceAll(string(in), "@ROOT@", root)), 0o600)
		done, _, _ := recoverAt(jdir, root)
		if len(rec.violations) > 0 {
			t.Fatalf("touched outside the fake root's allowed files: %q", rec.violations)
		}
		for _, r := range done {
			for _, l := range r.Lines() {
				if strings.Contains(l, "\n") {
					t.Fatalf("a line of the report spans lines: %q", l)
				}
			}
		}
	})
}
