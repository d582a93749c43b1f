package knob

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/sys"
)

// JournalSchema names the layout of a restore journal.
const JournalSchema = "kdelta/restore/v1"

// An Entry is one file to write back and the value it held before.
type Entry struct {
	Key   string `json:"key"`
	Path  string `json:"path"`
	Value string `json:"value"`
	// Set lists the values the session may write to the file. A file
	// found holding another value was changed by hand after kdelta set
	// it, and is kept. Without Set (a tracefs file, whose content does
	// not read back as what was written) the old value is written
	// whatever the file holds.
	Set []string `json:"set,omitempty"`
}

// record is a restore journal's content.
type record struct {
	Schema  string    `json:"schema"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Command []string  `json:"command,omitempty"`
	Knobs   []Entry   `json:"knobs"`
	// Shield is the session's CPU shield, if it has one.
	Shield *shieldRecord `json:"shield,omitempty"`
}

// JournalDir is where restore journals live: $XDG_STATE_HOME/kdelta/restore.d,
// else ~/.local/state/kdelta/restore.d.
func JournalDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("restore journal: no $XDG_STATE_HOME and %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "kdelta", "restore.d"), nil
}

// A journal is the restore journal of this process, locked while it
// lives.
type journal struct {
	path string
	f    *os.File
}

// createJournal writes rec to DIR/PID.json and keeps it locked. It is
// written under a temporary name, locked, synced and only then renamed,
// so a journal that Recover can see is always whole and always locked by
// a living owner until that owner exits.
func createJournal(dir string, rec record) (*journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("restore journal: %w (set XDG_STATE_HOME to a writable directory)", err)
	}
	// A journal where others may write would not be honoured after a
	// crash: refuse it before any knob is changed.
	if err := checkJournalDir(dir); err != nil {
		return nil, fmt.Errorf("%w (a kdelta that is killed could not be undone from it; chmod go-w it, or set XDG_STATE_HOME)", err)
	}
	final := freeJournalName(dir, rec.PID)
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Left by a process of the same pid that died before renaming
		// it; it never changed a knob.
		os.Remove(tmp)
		f, err = os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("restore journal: %w", err)
	}
	fail := func(err error) (*journal, error) {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("restore journal %s: %w", final, err)
	}
	if err := sys.TryLock(f); err != nil {
		return fail(err)
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fail(err)
	}
	syncDir(dir)
	return &journal{path: final, f: f}, nil
}

// freeJournalName returns DIR/PID.json, or DIR/PID-N.json for the first
// N that is free when that is taken: by another session of this process
// (its knobs and --funclatency's tracefs files each have one), or by a
// journal a dead process of the same pid left for another try.
func freeJournalName(dir string, pid int) string {
	base := filepath.Join(dir, strconv.Itoa(pid))
	name := base + ".json"
	for n := 2; ; n++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = base + "-" + strconv.Itoa(n) + ".json"
	}
}

// remove deletes the journal: every knob is back.
func (j *journal) remove() {
	if j == nil || j.f == nil {
		return
	}
	os.Remove(j.path)
	syncDir(filepath.Dir(j.path))
	j.f.Close()
	j.f = nil
}

// release unlocks the journal and leaves it for Recover: some knob could
// not be written back.
func (j *journal) release() {
	if j == nil || j.f == nil {
		return
	}
	j.f.Close()
	j.f = nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// A Recovery reports what Recover did with one journal.
type Recovery struct {
	// File is the journal; PID the kdelta that wrote it.
	File string
	PID  int
	// Restored lists the knobs written back; Unchanged those that already
	// held their old value; HandSet those that held neither it nor a
	// value kdelta set, and were left as they are.
	Restored, Unchanged, HandSet []Entry
	// SetAside says the journal broke a rule for what kdelta reads back
	// (Err says which) and was renamed FILE.bad with nothing in it done;
	// no later kdelta tries it again.
	SetAside bool
	// Shield is what taking down the kdelta's CPU shield did; nil when
	// it had none.
	Shield *ShieldUndo
	// Err is why some knob could not be written back; the journal stays
	// for the next attempt.
	Err error
}

// A Holder is a running kdelta that holds knobs changed.
type Holder struct {
	PID   int
	Knobs []Entry
	// Shield lists the CPUs it shields; "" for none.
	Shield string
}

// Recover writes back the knobs of every journal in dir whose owner is
// gone (its lock can be taken) and removes those journals; the journals of
// running kdeltas are listed in holders and left alone. A directory that
// does not exist holds nothing.
//
// Every journal is checked before anything in it is done (see guard.go):
// one that breaks a rule is renamed FILE.bad and reported in done with
// SetAside. A directory that is not the user's own, or that others may
// write, is left as it is, and the error says so.
func Recover(dir string) (done []Recovery, holders []Holder, err error) {
	return recoverAt(dir, "/")
}

// tracefsEnv is the tracefs directory the environment gives kdelta
// ($KDELTA_TRACEFS, a test's), when it is a clean absolute path.
func tracefsEnv() string {
	if d := os.Getenv("KDELTA_TRACEFS"); clean(d) && d != "/" {
		return d
	}
	return ""
}

// recoverAt is Recover for the machine under root, whose knob files,
// cgroups and /proc the journals' records must name.
func recoverAt(dir, root string) (done []Recovery, holders []Holder, err error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("restore journal: %w", err)
	}
	if err := checkJournalDir(dir); err != nil {
		return nil, nil, fmt.Errorf("%w: its journals are not acted on", err)
	}
	v := validator{root: root, tracefs: tracefsEnv()}
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case strings.HasSuffix(name, ".json.tmp"):
			// A journal being written, or left by an owner that died
			// before any knob was written.
			if f, err := os.Open(p); err == nil {
				if sys.TryLock(f) == nil && sameFile(f, p) {
					_ = fsys.Remove(p)
				}
				f.Close()
			}
		case strings.HasSuffix(name, ".json"):
			r, h := recoverOne(p, v)
			if h != nil {
				holders = append(holders, *h)
			}
			if r != nil {
				done = append(done, *r)
			}
		}
	}
	return done, holders, nil
}

// recoverOne restores one journal if its owner is gone.
func recoverOne(p string, v validator) (*Recovery, *Holder) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil // removed meanwhile by its owner or another kdelta
	}
	defer f.Close()
	var rec record
	data, rerr := fsys.ReadFile(p)
	if rerr == nil {
		rerr = json.Unmarshal(data, &rec)
	}
	if err := sys.TryLock(f); err != nil {
		if rerr != nil {
			return nil, nil
		}
		h := &Holder{PID: rec.PID, Knobs: rec.Knobs}
		if rec.Shield != nil {
			h.Shield = rec.Shield.CPUs
		}
		return nil, h
	}
	// The lock is ours; the file may since have been recovered and removed
	// by another kdelta, whose lock we then took on a dead inode.
	if !sameFile(f, p) {
		return nil, nil
	}
	r := &Recovery{File: p, PID: rec.PID}
	bad := checkOwner("restore journal", p, false)
	if bad == nil && rerr != nil {
		// Journals are renamed into place whole, so this one was damaged
		// after the fact.
		bad = broke("restore journal", "unreadable: %v", rerr)
	}
	if bad == nil {
		bad = v.check(&rec)
	}
	if bad != nil {
		// Keep it aside for a human, never retry it.
		r.SetAside = true
		if err := fsys.Rename(p, p+".bad"); err != nil {
			r.Err = fmt.Errorf("restore journal %s set aside, nothing in it done: %v (and it could not be renamed: %v)", p, bad, unwrapPath(err))
		} else {
			r.Err = fmt.Errorf("restore journal %s set aside as %s.bad, nothing in it done: %v", p, p, bad)
		}
		return r, nil
	}
	var errs []error
	for _, e := range rec.Knobs {
		changed, err := writeBack(e.Path, e.Value, e.Set)
		switch {
		case errors.Is(err, errHandSet):
			r.HandSet = append(r.HandSet, e)
		case err != nil:
			errs = append(errs, fmt.Errorf("%s=%s: %w", e.Path, e.Value, err))
		case changed:
			r.Restored = append(r.Restored, e)
		default:
			r.Unchanged = append(r.Unchanged, e)
		}
	}
	if rec.Shield != nil {
		u, err := undoShield(rec.Shield)
		r.Shield = &u
		if err != nil {
			errs = append(errs, fmt.Errorf("CPU shield on %s: %w", rec.Shield.CPUs, err))
		}
	}
	if len(errs) > 0 {
		r.Err = errors.Join(errs...)
		return r, nil
	}
	_ = fsys.Remove(p)
	syncDir(filepath.Dir(p))
	return r, nil
}

// errHandSet marks a file that holds neither its old value nor one that
// kdelta set: someone set it by hand since, and it is kept.
var errHandSet = errors.New("changed by hand")

// writeBack gives the file at path its old value when it holds another.
// With set, the values kdelta may have written, a file that holds none
// of them is left alone (errHandSet).
func writeBack(path, value string, set []string) (changed bool, err error) {
	return writeBackAs(path, value, set, same)
}

// writeBackAs is writeBack with eq telling whether what the file reads
// is a value written.
func writeBackAs(path, value string, set []string, eq func(read, written string) bool) (changed bool, err error) {
	if b, err := fsys.ReadFile(path); err == nil {
		if v, err := ParseValue(string(b)); err == nil {
			if eq(v.Selected, value) {
				return false, nil
			}
			if len(set) > 0 && !slices.ContainsFunc(set, func(s string) bool { return eq(v.Selected, s) }) {
				return false, errHandSet
			}
		}
	}
	if err := writeFile(path, value); err != nil {
		return false, err
	}
	return true, nil
}

func sameFile(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// RecoverStale restores the knobs of kdeltas that are gone, as every
// kdelta does when it starts, and says what it did on w. Without a
// journal directory it costs one stat.
func RecoverStale(w io.Writer) {
	dir, err := JournalDir()
	if err != nil {
		return
	}
	if _, err := os.Stat(dir); err != nil {
		return
	}
	done, _, err := Recover(dir)
	if err != nil {
		fmt.Fprintf(w, "kdelta: warning: %v\n", err)
		return
	}
	for _, r := range done {
		for _, l := range r.Lines() {
			fmt.Fprintf(w, "kdelta: %s\n", l)
		}
	}
}

// Lines describes a recovery, one line per knob: what was done, then the
// warnings.
func (r Recovery) Lines() []string {
	return append(r.Done(), r.Warnings()...)
}

// Done lists the knobs the recovery wrote back, one line each.
func (r Recovery) Done() []string {
	var out []string
	for _, e := range r.Restored {
		out = append(out, fmt.Sprintf("restored %s=%s (%s), left changed by kdelta pid %d, which is gone", e.Key, e.Value, e.Path, r.PID))
	}
	if u := r.Shield; u != nil {
		out = append(out, fmt.Sprintf("took down the CPU shield on %s (%s) left by kdelta pid %d, which is gone: %d tasks moved back, %d task and %d IRQ affinities set back",
			u.CPUs, u.Mechanism, r.PID, u.TasksBack, u.Affinities, u.IRQs))
		out = append(out, u.Kept()...)
	}
	return out
}

// handSetLines say which files the recovery left as set by hand.
func (r Recovery) handSetLines() []string {
	var out []string
	for _, e := range r.HandSet {
		out = append(out, fmt.Sprintf("warning: kept %s (%s) as it is: it no longer holds what kdelta pid %d set, so it was changed by hand since (its value before kdelta was %q)", e.Key, e.Path, r.PID, e.Value))
	}
	if r.Shield != nil {
		for _, e := range r.Shield.HandSet {
			out = append(out, fmt.Sprintf("warning: kept %s (%s) as it is: it no longer holds what kdelta pid %d's CPU shield set, so it was changed by hand since (its value before the shield was %q)", e.Key, e.Path, r.PID, e.Value))
		}
	}
	return out
}

// Warnings lists what the recovery could not write back, one line each,
// each starting "warning: ".
func (r Recovery) Warnings() []string {
	out := r.handSetLines()
	if r.Err == nil {
		return out
	}
	if r.SetAside {
		return append(out, fmt.Sprintf("warning: %v (kdelta will not try it again; read it, undo by hand what it names, and remove it)", r.Err))
	}
	for _, l := range strings.Split(r.Err.Error(), "\n") {
		out = append(out, fmt.Sprintf("warning: could not restore what kdelta pid %d left changed: %s (kdelta restore tries again)", r.PID, l))
	}
	return out
}
