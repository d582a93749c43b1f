package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/kbuild"
	"github.com/kdelta/kdelta/internal/vm"
)

// kbuildFlags are the flags of kernels kdelta builds (--kernel git:REV,
// git:BASE..HEAD, tree:DIR), for vm and series.
type kbuildFlags struct {
	firstParent bool
	commits     string
}

// register adds the build flags to f; series also takes a range's
// first-parent walk and a commit list.
func (k *kbuildFlags) register(f *pflag.FlagSet, o *vm.Options, series bool) {
	f.StringVar(&o.Build.Config, "config", "", "base config of kernels built from git:REV or tree:DIR: a file, or a make target (defconfig, tinyconfig); default the running kernel's, else defconfig; kdelta's guest fragment is merged over it")
	f.IntVar(&o.Build.Jobs, "build-jobs", 0, "make -j of kernel builds (default: the number of CPUs)")
	f.StringVar(&o.RootFS, "rootfs", vm.RootFSInitramfs, "the guest's root file system: initramfs (kdelta and the job alone: lean, the built-in workloads) or host (this machine's root, read-only over 9p, private /tmp and /run: command:, stat -- CMD, perf and stress-ng run inside; the kernel needs 9p over virtio built in, as kernels kdelta builds have)")
	if series {
		f.BoolVar(&k.firstParent, "first-parent", false, "with --kernel git:BASE..HEAD: follow only the first parent of merges")
		f.StringVar(&k.commits, "commits", "", "a file of commits to build and boot, one a line (git log --oneline's output is one), after any --kernel")
	}
}

// expand replaces each range among kernels by its commits, and adds the
// commit list's.
func (k *kbuildFlags) expand(kernels []string) ([]string, error) {
	return vm.ExpandKernels(kernels, k.firstParent, k.commits)
}

// bisectBuild is bisect-run's --build: the checked-out commit built with
// its kernel config (kbuild), booted as --vm would boot an image.
type bisectBuild struct {
	on     bool
	config string
	jobs   int
}

func (k *bisectBuild) register(f *pflag.FlagSet) {
	f.BoolVar(&k.on, "build", false, "build the checked-out commit (git:HEAD, out of the tree, cached) and measure it booted in qemu; a commit that does not build answers 125 with the build log named")
	f.StringVar(&k.config, "config", "", "with --build: base config: a file, or a make target (defconfig, tinyconfig); default the running kernel's, else defconfig")
	f.IntVar(&k.jobs, "build-jobs", 0, "with --build: make -j (default: the number of CPUs)")
}

// kernel builds the checked-out commit and returns its image, adding its
// commit, subject and config hash to labels. A build that fails is
// bisect-run's "cannot tell" (125).
func (k *bisectBuild) kernel(ctx context.Context, labels map[string]string, log io.Writer) (string, error) {
	srcs, err := kbuild.Resolve("git:HEAD", false)
	if err != nil {
		return "", err
	}
	kn, err := kbuild.Build(ctx, srcs[0], &kbuild.Options{Config: k.config, Jobs: k.jobs, Log: log})
	if err != nil {
		if vm.IsBuildError(err) {
			return "", &exitError{code: ExitSkip, err: fmt.Errorf("bisect-run: cannot tell: %w", err)}
		}
		return "", err
	}
	if kn.Cached {
		fmt.Fprintf(log, "kdelta: bisect-run: %s built before (cache): %s\n", kn.Source.Short(), kn.Image)
	}
	labels[vm.LabelCommit] = kn.Source.Commit
	labels[vm.LabelSubject] = kn.Source.Subject
	labels[vm.LabelConfigHash] = kn.ConfigHash
	return kn.Image, nil
}
