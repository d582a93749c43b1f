package vm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/kbuild"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// A --kernel git:REV, git:DIR@REV or tree:DIR is a kernel kdelta builds
// (internal/kbuild) before it boots it; a range, git:BASE..HEAD, is every
// commit of it, one variant each (ExpandKernels).

// Labels a built kernel's result sets carry.
const (
	LabelCommit     = "kernel_commit"
	LabelSubject    = "kernel_subject"
	LabelConfigHash = "kernel_config_sha256"
	LabelTree       = "kernel_tree"
)

// ExpandKernels replaces each --kernel git:BASE..HEAD of kernels by the
// commits of the range, BASE first (git:DIR@HASH each), following only
// first parents with firstParent, and appends the commits of the commit
// list file commits (one revision a line) when it is not "".
func ExpandKernels(kernels []string, firstParent bool, commits string) ([]string, error) {
	var out []string
	for _, k := range kernels {
		if !strings.HasPrefix(k, kbuild.GitPrefix) || !strings.Contains(k, "..") {
			out = append(out, k)
			continue
		}
		srcs, err := kbuild.Resolve(k, firstParent)
		if err != nil {
			return nil, err
		}
		for _, s := range srcs {
			out = append(out, s.Ref)
		}
	}
	if commits != "" {
		srcs, err := kbuild.ReadCommitList(commits, "")
		if err != nil {
			return nil, err
		}
		for _, s := range srcs {
			out = append(out, s.Ref)
		}
	}
	return out, nil
}

// buildKernel builds the kernel ref names (or finds it in the cache) and
// returns it as a kernel package: its image, and the build for the
// labels.
func buildKernel(opt *Options, ref string) (*kernelPackage, error) {
	srcs, err := kbuild.Resolve(ref, false)
	if err != nil {
		return nil, err
	}
	if len(srcs) != 1 {
		return nil, fmt.Errorf("--kernel %s: a range is kdelta series's (or give one commit)", ref)
	}
	bo := opt.Build
	if bo.Arch == "" {
		bo.Arch = opt.Arch
	}
	bo.Log = logOf(opt)
	k, err := kbuild.Build(context.Background(), srcs[0], &bo)
	if err != nil {
		return nil, err
	}
	if k.Cached {
		fmt.Fprintf(logOf(opt), "kdelta: vm: %s built before (cache): %s\n", k.Source.Short(), k.Image)
	}
	if len(k.NotOn) > 0 {
		fmt.Fprintf(logOf(opt), "kdelta: vm: warning: the config of %s lacks options kdelta's guest needs: %s (their dependencies are off); see %s\n",
			k.Source.Short(), strings.Join(k.NotOn, " "), k.Log)
	}
	return &kernelPackage{Name: ref, Version: k.Source.Commit, Image: k.Image, build: k}, nil
}

// labelBuild labels a built kernel's set with its commit, subject and
// config hash.
func labelBuild(s *result.Set, k *kbuild.Kernel) {
	if k.Source.Commit != "" {
		s.Labels[LabelCommit] = k.Source.Commit
		s.Labels[LabelSubject] = k.Source.Subject
	} else {
		s.Labels[LabelTree] = k.Source.Dir + "@" + k.Source.Tree
	}
	s.Labels[LabelConfigHash] = k.ConfigHash
	delete(s.Labels, "kernel_package")
}

// notOnNote is what a failed boot of a built kernel adds: the options of
// the fragment its config lacks, the likely reason it never reached /init.
func notOnNote(err error, pkg *kernelPackage) error {
	if pkg == nil || pkg.build == nil || len(pkg.build.NotOn) == 0 || err == nil {
		return err
	}
	return fmt.Errorf("%w; the kernel's config lacks options kdelta's guest needs: %s", err, strings.Join(pkg.build.NotOn, " "))
}

// IsBuildError tells whether err is a kernel that did not build.
func IsBuildError(err error) bool {
	var be *kbuild.BuildError
	return errors.As(err, &be)
}

// commitPoint is the point in a series of variant i when it is a commit
// kdelta built: "#N HASH", N its place in the series, so that the points
// keep the order of the commits (a kernel release would sort them by
// their hashes); "" for any other kernel.
func commitPoint(i int, v *prepared) string {
	if v.pkg == nil || v.pkg.build == nil || v.pkg.build.Source.Commit == "" {
		return ""
	}
	return fmt.Sprintf("#%d %.12s", i+1, v.pkg.build.Source.Commit)
}

// A CommitStep is a step of a workload's history in a series of commits
// kdelta built, at the commit after it: the benchmark and metric, the
// commits on either side (hash and subject), the change point, and the
// comparison of the commit with the one before it, booted apart (A.N is
// 0 when they could not be compared: Why says why): the one the step's
// marker prints, whose verdict carries the TCG caveat when either build
// was booted under TCG (history.Neighbours marks it).
type CommitStep struct {
	Bench, Metric         string
	Commit, Subject       string
	Before, BeforeSubject string
	Step                  stats.ChangePoint
	Comparison            stats.Comparison
	Why                   string
}

// Commits are, after a series of commits kdelta built, the steps of each
// workload's history, each at the commit after it, judged under opt.
func (sr *Series) Commits(opt compare.Options) []CommitStep {
	var out []CommitStep
	for _, h := range sr.History {
		// The commits' sets by the label the history is by.
		byPoint := map[string]*result.Set{}
		for _, s := range sr.Sets {
			if s != nil && s.Labels[LabelCommit] != "" {
				byPoint[s.Labels[h.By]] = s
			}
		}
		if len(byPoint) == 0 {
			continue
		}
		if len(h.Points) > 1 && h.Points[1].Versus == nil {
			h.Judge(sr.Sets, opt)
		}
		// The comparison the step's marker prints, judged once.
		for _, p := range h.Points {
			n := p.Versus
			if n == nil || n.Step == nil {
				continue
			}
			after, before := byPoint[n.After], byPoint[n.Before]
			if after == nil || before == nil {
				continue
			}
			out = append(out, CommitStep{
				Bench: strings.TrimSpace(h.Workload + " " + result.FormatParams(h.Params)), Metric: h.Metric.Name,
				Commit: after.Labels[LabelCommit], Subject: after.Labels[LabelSubject],
				Before: before.Labels[LabelCommit], BeforeSubject: before.Labels[LabelSubject],
				Step: *n.Step, Comparison: n.Comparison, Why: n.Why,
			})
		}
	}
	return out
}
