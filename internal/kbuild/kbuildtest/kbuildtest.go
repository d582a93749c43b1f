// Package kbuildtest gives tests a real kernel tree: Debian's
// linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz) unpacked once into
// the test cache and made a git repository, with the commits a test
// writes on top, and a build cache shared by the tests of a run, so that
// the kernel one test built the next boots without building it. Only
// tests import it.
package kbuildtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// Tarball is the kernel source Debian's linux-source-6.1 installs.
const Tarball = "/usr/src/linux-source-6.1.tar.xz"

// BaseTag tags the commit of the source as Debian ships it.
const BaseTag = "kdelta-base"

// Root is the test cache: $KDELTA_TEST_CACHE, else /var/tmp/kdelta-test
// (kept across the tests of a run and across runs on one machine).
func Root() string {
	if d := os.Getenv("KDELTA_TEST_CACHE"); d != "" {
		return d
	}
	return "/var/tmp/kdelta-test"
}

// BuildCache is the kbuild cache the tests share.
func BuildCache() string { return filepath.Join(Root(), "kbuild") }

// The tests' commits have fixed authors and dates, so the same commit
// has the same hash in every run and its build is found in the cache.
var gitEnv = []string{
	"GIT_AUTHOR_NAME=kdelta test", "GIT_AUTHOR_EMAIL=test@kdelta.invalid",
	"GIT_COMMITTER_NAME=kdelta test", "GIT_COMMITTER_EMAIL=test@kdelta.invalid",
	"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
}

// Git runs git in dir, failing t on an error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Source returns the kernel tree, a git repository whose tag BaseTag is
// Debian's source, unpacking it first if no test has: it needs the
// tarball, tar, xz and git (it skips without them, failing under CI).
func Source(t testing.TB) string {
	t.Helper()
	testenv.NeedCommand(t, "git", "git")
	testenv.NeedCommand(t, "make", "make")
	testenv.NeedCommand(t, "gcc", "gcc")
	testenv.NeedCommand(t, "flex", "flex")
	testenv.NeedCommand(t, "bison", "bison")
	testenv.NeedCommand(t, "bc", "bc")
	testenv.NeedCommand(t, "xz", "xz-utils")
	if _, err := os.Stat(Tarball); err != nil {
		testenv.Skipf(t, "no kernel source: %v (Debian package linux-source-6.1)", err)
	}
	root := Root()
	dir := filepath.Join(root, "linux-6.1")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	lf, err := os.OpenFile(filepath.Join(root, "linux-6.1.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if exec.Command("git", "-C", dir, "rev-parse", "--verify", "--quiet", BaseTag).Run() == nil {
		return dir
	}
	t.Logf("unpacking %s into %s (once per test cache)", Tarball, dir)
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xJf", Tarball, "-C", tmp, "--strip-components=1").CombinedOutput(); err != nil {
		t.Fatalf("unpack %s: %v\n%s", Tarball, err, out)
	}
	// Debian's .gitignore ends by ignoring everything at the top
	// (its packaging keeps only debian/ in git): cut that part.
	gi := filepath.Join(tmp, ".gitignore")
	if data, err := os.ReadFile(gi); err == nil {
		if i := strings.Index(string(data), "#\n# Debian packaging"); i >= 0 {
			if err := os.WriteFile(gi, data[:i], 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	Git(t, tmp, "init", "-q")
	Git(t, tmp, "add", "-A", ".")
	Git(t, tmp, "commit", "-q", "-m", "linux-source-6.1 as Debian ships it")
	Git(t, tmp, "tag", BaseTag)
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An Edit is one commit a test writes: a file of the tree and its
// changes.
type Edit struct {
	Subject string
	File    string
	Changes []Change
}

// A Change is a line of a file to find and what goes after that line.
type Change struct{ After, Insert string }

// Branch makes (or finds) the branch name on BaseTag with one commit per
// edit, in order, and returns the commits' hashes. The commits' dates are
// fixed, so the same edits give the same hashes.
func Branch(t testing.TB, dir, name string, edits []Edit) []string {
	t.Helper()
	if out, err := exec.Command("git", "-C", dir, "rev-list", "--reverse", BaseTag+".."+name).Output(); err == nil {
		hs := strings.Fields(string(out))
		if len(hs) == len(edits) {
			return hs
		}
	}
	wt := filepath.Join(Root(), "edit-"+name)
	os.RemoveAll(wt)
	exec.Command("git", "-C", dir, "worktree", "prune").Run()
	Git(t, dir, "worktree", "add", "-q", "-f", "--detach", wt, BaseTag)
	defer func() {
		exec.Command("git", "-C", dir, "worktree", "remove", "--force", wt).Run()
	}()
	var hs []string
	for _, e := range edits {
		p := filepath.Join(wt, e.File)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		nd := string(data)
		for _, c := range e.Changes {
			i := strings.Index(nd, c.After)
			if i < 0 {
				t.Fatalf("%s: no line %q to edit after", e.File, c.After)
			}
			j := i + len(c.After)
			if k := strings.IndexByte(nd[j:], '\n'); k >= 0 {
				j += k + 1
			}
			nd = nd[:j] + c.Insert + nd[j:]
		}
		if err := os.WriteFile(p, []byte(nd), 0o644); err != nil {
			t.Fatal(err)
		}
		Git(t, wt, "commit", "-q", "-a", "-m", e.Subject)
		hs = append(hs, Git(t, wt, "rev-parse", "HEAD"))
	}
	Git(t, dir, "branch", "-f", name, hs[len(hs)-1])
	return hs
}

// SeriesEdits are acceptance 1's four commits: a comment, a line printed
// at boot, a fixed cost added to getppid() (udelay(2)), and one after it.
var SeriesEdits = []Edit{
	{Subject: "sys: say what getppid returns", File: "kernel/sys.c", Changes: []Change{{After: "SYSCALL_DEFINE0(getppid)",
		Insert: "/* The caller's parent's thread group id, in the caller's pid namespace. */\n"}}},
	{Subject: "init: say at boot that the series is running", File: "init/main.c", Changes: []Change{{After: "\tkernel_init_freeable();",
		Insert: "\tpr_info(\"kdelta test series: init\\n\");\n"}}},
	{Subject: "sys: wait 2 us in getppid", File: "kernel/sys.c", Changes: []Change{
		{After: "#include <linux/mm.h>", Insert: "#include <linux/delay.h>\n"},
		{After: "\tpid = task_tgid_vnr(rcu_dereference(current->real_parent));", Insert: "\tudelay(2);\n"}}},
	{Subject: "pipe: a comment after the slow commit", File: "fs/pipe.c", Changes: []Change{{After: "#include <linux/mm.h>",
		Insert: "/* kdelta test series: nothing changes here. */\n"}}},
}

// BisectEdits are acceptance 2's commits: the series' first two, one
// that does not build (an #error), one that makes it build again, the
// slow getppid() and a comment after it.
var BisectEdits = []Edit{
	SeriesEdits[0], SeriesEdits[1],
	{Subject: "pipe: a line that does not compile", File: "fs/pipe.c", Changes: []Change{{After: "#include <linux/mm.h>",
		Insert: "#error kdelta test: this commit does not build\n"}}},
	{Subject: "pipe: compile again", File: "fs/pipe.c", Changes: []Change{
		{After: "#include <linux/mm.h>", Insert: "#if 0\n"},
		{After: "#error kdelta test", Insert: "#endif\n"}}},
	SeriesEdits[2], SeriesEdits[3],
}

// Short is a commit's first 12 hex digits, as kbuild names it.
func Short(h string) string { return fmt.Sprintf("%.12s", h) }
