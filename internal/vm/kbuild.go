package vm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/kbuild"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
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

// WriteCommits writes, after a series of commits kdelta built, a line per
// step of each workload's history naming the commit after the step: its
// hash and subject, the change of the figure against the commit before
// it with its confidence interval and verdict, and the design of that
// comparison (boots a side, runs a side).
func (sr *Series) WriteCommits(w io.Writer, opt compare.Options) {
	byPoint := map[string]*result.Set{}
	for _, s := range sr.Sets {
		if s != nil && s.Labels[LabelCommit] != "" {
			byPoint[s.Labels[sr.by]] = s
		}
	}
	if len(byPoint) == 0 {
		return
	}
	for _, h := range sr.History {
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
			// The verdict carries its caveat where it is printed: builds
			// booted under TCG are not the hardware's timing
			// (history.Neighbours marks the comparison).
			c := n.Comparison
			bench := strings.TrimSpace(h.Workload + " " + result.FormatParams(h.Params))
			line := fmt.Sprintf("step at commit %.12s (%s): %s %s", after.Labels[LabelCommit], after.Labels[LabelSubject], bench, h.Metric.Name)
			if c.A.N == 0 {
				line += fmt.Sprintf(" %+.1f%% (change point) against %.12s; not compared: %s", 100*n.Step.Change, before.Labels[LabelCommit], n.Why)
			} else {
				line += fmt.Sprintf(" %+.1f%% [%+.1f%%, %+.1f%%] against %.12s (%s), %s; design: %d and %d boots, %d and %d runs",
					100*c.Change, 100*c.CI[0], 100*c.CI[1], before.Labels[LabelCommit], before.Labels[LabelSubject], report.VerdictText(c),
					c.Design.Sessions[0], c.Design.Sessions[1], c.Design.Runs[0], c.Design.Runs[1])
				if c.Design.NoiseUnknown {
					line += ", session noise unknown"
				}
			}
			fmt.Fprintln(w, line)
		}
	}
}
