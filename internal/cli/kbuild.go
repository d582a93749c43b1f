package cli

import (
	"github.com/spf13/pflag"

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
