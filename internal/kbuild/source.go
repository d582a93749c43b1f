package kbuild

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Prefixes of a --kernel that kdelta builds.
const (
	GitPrefix  = "git:"
	TreePrefix = "tree:"
)

// IsRef tells whether a --kernel names a kernel to build: git:REV,
// git:DIR@REV, git:BASE..HEAD or tree:DIR.
func IsRef(ref string) bool {
	return strings.HasPrefix(ref, GitPrefix) || strings.HasPrefix(ref, TreePrefix)
}

// A Source is one kernel to build: a commit of a git repository, or a
// working tree as it is.
type Source struct {
	// Ref is the --kernel as given.
	Ref string
	// Dir is the top of the repository (git) or the tree (tree).
	Dir string
	// Commit is the full hash of the commit (git: only); Subject its
	// subject line.
	Commit, Subject string
	// Tree is the hash of a tree: source's contents (tree: only).
	Tree string
}

// ID is what the build's cache key holds of the source: the commit, or
// the tree's hash.
func (s *Source) ID() string {
	if s.Commit != "" {
		return "commit " + s.Commit
	}
	return "tree " + s.Tree
}

// Short names the source in a line: "git 1a2b3c4d5e6f (subject)" or
// "tree DIR (hash 1a2b3c4d5e6f)".
func (s *Source) Short() string {
	if s.Commit != "" {
		return fmt.Sprintf("commit %s (%s)", short(s.Commit), s.Subject)
	}
	return fmt.Sprintf("tree %s (contents %s)", s.Dir, short(s.Tree))
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// git runs git in dir and returns its output, trimmed; its error carries
// git's own first line.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(string(out)), nil
}

// splitGit cuts a git: ref into its repository and its revision: git:REV
// is a revision of the repository of the current directory, git:DIR@REV
// one of DIR's.
func splitGit(ref string) (dir, rev string, err error) {
	spec := strings.TrimPrefix(ref, GitPrefix)
	if i := strings.LastIndexByte(spec, '@'); i > 0 && (strings.Contains(spec[:i], "/") || isDir(spec[:i])) {
		dir, rev = spec[:i], spec[i+1:]
	} else {
		dir, rev = ".", spec
	}
	if rev == "" {
		return "", "", fmt.Errorf("--kernel %s: no revision (git:REV, git:DIR@REV, git:BASE..HEAD)", ref)
	}
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", fmt.Errorf("--kernel %s: %s is not in a git repository: %w", ref, dir, err)
	}
	return top, rev, nil
}

// Resolve returns the kernel sources a --kernel names: one for git:REV,
// git:DIR@REV and tree:DIR; for a range, git:BASE..HEAD, every commit of
// it, oldest first, BASE first (the base of the series), following only
// first parents when firstParent is set.
func Resolve(ref string, firstParent bool) ([]*Source, error) {
	if d, ok := strings.CutPrefix(ref, TreePrefix); ok {
		s, err := resolveTree(ref, d)
		if err != nil {
			return nil, err
		}
		return []*Source{s}, nil
	}
	if !strings.HasPrefix(ref, GitPrefix) {
		return nil, fmt.Errorf("--kernel %s: not git:REV, git:DIR@REV or tree:DIR", ref)
	}
	dir, rev, err := splitGit(ref)
	if err != nil {
		return nil, err
	}
	base, head, isRange := strings.Cut(rev, "..")
	if !isRange {
		s, err := commit(ref, dir, rev)
		if err != nil {
			return nil, err
		}
		return []*Source{s}, nil
	}
	if base == "" || head == "" || strings.HasPrefix(head, ".") {
		return nil, fmt.Errorf("--kernel %s: a range is BASE..HEAD, both given", ref)
	}
	b, err := commit(ref, dir, base)
	if err != nil {
		return nil, err
	}
	args := []string{"rev-list", "--reverse"}
	if firstParent {
		args = append(args, "--first-parent")
	}
	out, err := git(dir, append(args, b.Commit+".."+head)...)
	if err != nil {
		return nil, fmt.Errorf("--kernel %s: %w", ref, err)
	}
	if out == "" {
		return nil, fmt.Errorf("--kernel %s: no commits in the range", ref)
	}
	srcs := []*Source{b}
	for _, h := range strings.Fields(out) {
		s, err := commit(ref, dir, h)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, s)
	}
	return srcs, nil
}

// ReadCommitList returns the commits a commit list file names, one
// revision a line (its first word; blank lines and # comments left out),
// of the repository of the current directory (or of dir), in the file's
// order.
func ReadCommitList(path, dir string) ([]*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("commit list: %w", err)
	}
	defer f.Close()
	revs, err := parseCommitList(f)
	if err != nil {
		return nil, fmt.Errorf("commit list %s: %w", path, err)
	}
	if dir == "" {
		dir = "."
	}
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("commit list %s: %s is not in a git repository: %w", path, dir, err)
	}
	var out []*Source
	for _, r := range revs {
		s, err := commit("commit list "+path, top, r)
		if err != nil {
			return nil, err
		}
		s.Ref = GitPrefix + top + "@" + s.Commit
		out = append(out, s)
	}
	return out, nil
}

// parseCommitList reads the revisions of a commit list: the first word of
// each line, blank lines and # comments left out (git log --oneline's
// output is one).
func parseCommitList(r io.Reader) ([]string, error) {
	var revs []string
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		w := strings.Fields(l)[0]
		if strings.HasPrefix(w, "-") || strings.Contains(w, "..") {
			return nil, fmt.Errorf("line %d: %q is not one revision", n, truncate(w, 60))
		}
		revs = append(revs, w)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(revs) == 0 {
		return nil, errors.New("names no commit")
	}
	return revs, nil
}

// commit resolves rev in the repository at top.
func commit(ref, top, rev string) (*Source, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("--kernel %s: %q is not a revision", ref, rev)
	}
	h, err := git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || h == "" {
		return nil, fmt.Errorf("--kernel %s: %q names no commit of %s", ref, rev, top)
	}
	subj, err := git(top, "log", "-1", "--format=%s", h)
	if err != nil {
		return nil, fmt.Errorf("--kernel %s: %w", ref, err)
	}
	return &Source{Ref: GitPrefix + top + "@" + h, Dir: top, Commit: h, Subject: subj}, nil
}

// resolveTree hashes a working tree: in a git repository, the tree git
// would commit (every file not ignored, as it is now, hashed through a
// copy of the index, the repository's own index left alone); elsewhere
// every regular file and link under DIR.
func resolveTree(ref, d string) (*Source, error) {
	if d == "" {
		return nil, fmt.Errorf("--kernel %s: no directory (tree:DIR)", ref)
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return nil, fmt.Errorf("--kernel %s: %w", ref, err)
	}
	if _, err := os.Stat(filepath.Join(abs, "Makefile")); err != nil {
		return nil, fmt.Errorf("--kernel %s: %s holds no kernel tree (no Makefile)", ref, abs)
	}
	if _, err := os.Stat(filepath.Join(abs, "scripts", "kconfig", "merge_config.sh")); err != nil {
		return nil, fmt.Errorf("--kernel %s: %s holds no kernel tree (no scripts/kconfig/merge_config.sh)", ref, abs)
	}
	s := &Source{Ref: ref, Dir: abs}
	if top, err := git(abs, "rev-parse", "--show-toplevel"); err == nil && top == abs {
		s.Tree, err = gitTreeHash(abs)
		if err != nil {
			return nil, fmt.Errorf("--kernel %s: %w", ref, err)
		}
		return s, nil
	}
	s.Tree, err = walkHash(abs)
	if err != nil {
		return nil, fmt.Errorf("--kernel %s: %w", ref, err)
	}
	return s, nil
}

// gitTreeHash is the tree git would commit from dir's working tree now.
func gitTreeHash(dir string) (string, error) {
	idx, err := git(dir, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp("", "kdelta-index-")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if data, err := os.ReadFile(idx); err == nil {
		if err := os.WriteFile(tmp.Name(), data, 0o600); err != nil {
			return "", err
		}
	} else {
		os.Remove(tmp.Name())
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+tmp.Name())
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s in %s: %v", strings.Join(args, " "), dir, err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	if _, err := run("add", "-A", "."); err != nil {
		return "", err
	}
	return run("write-tree")
}

// walkHash hashes every regular file and link under dir, by path, mode and
// contents, leaving out .git.
func walkHash(dir string) (string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00%o\x00", rel, fi.Mode())
		if fi.Mode()&fs.ModeSymlink != 0 {
			t, err := os.Readlink(p)
			if err != nil {
				return "", err
			}
			io.WriteString(h, t)
		} else {
			f, err := os.Open(p)
			if err != nil {
				return "", err
			}
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return "", err
			}
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
