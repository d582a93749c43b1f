// Package kbuild builds the kernels kdelta boots from source: a commit of
// a git repository (--kernel git:REV, git:DIR@REV, git:BASE..HEAD) or a
// working tree as it is (--kernel tree:DIR). It builds out of the tree
// (make O=) in kdelta's cache, keyed by the commit (or the tree's hash),
// the base config, the fragment and the compiler, so the same kernel
// asked for again builds nothing. The config is a base (a file, the
// running kernel's, or a make target such as defconfig or tinyconfig)
// with the fragment of what kdelta's guest needs merged over it by the
// kernel's own scripts/kconfig/merge_config.sh and settled by make
// olddefconfig. The compiler runs under ccache when it is installed; the
// whole of make's output goes to a log in the cache entry, and a progress
// line to the caller.
package kbuild

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Options say how to build.
type Options struct {
	// Config is the base config: a file, a make target that writes one
	// (defconfig, tinyconfig, allnoconfig, NAME_defconfig), or "" for
	// the running kernel's (/proc/config.gz, /boot/config-RELEASE), else
	// defconfig.
	Config string
	// Arch is the kernel's architecture, as GOARCH names it; "" is this
	// machine's.
	Arch string
	// Jobs is make's -j; 0 is the number of CPUs.
	Jobs int
	// Cache is the cache's root; "" is $KDELTA_KBUILD_CACHE, else
	// kdelta/kbuild under the user's cache directory.
	Cache string
	// Log receives the progress lines; nil discards them.
	Log io.Writer
	// Progress is how often a progress line is written while make runs;
	// 0 is every 30 s.
	Progress time.Duration
}

// A Kernel is a built kernel in the cache.
type Kernel struct {
	Source *Source `json:"source"`
	// Image is the image to boot; Config the build's .config beside it;
	// Log make's whole output.
	Image  string `json:"image"`
	Config string `json:"config"`
	Log    string `json:"log"`
	// ConfigHash is the SHA-256 of the final .config.
	ConfigHash string `json:"config_sha256"`
	// Base names the base config: a file's path, a make target, or
	// "running kernel (PATH)".
	Base string `json:"base"`
	// Release is the kernel's uname -r.
	Release string `json:"release"`
	// NotOn are the options of the fragment the final config does not
	// have: what olddefconfig turned off for a missing dependency.
	NotOn []string `json:"not_on,omitempty"`
	// Took is how long the build took; Cached says it was found in the
	// cache and not built now.
	Took   time.Duration `json:"took"`
	Cached bool          `json:"-"`
}

// A BuildError is a kernel that did not build: the source, the log that
// holds make's output and its line that says why.
type BuildError struct {
	Source *Source
	Log    string
	Why    string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("%s does not build: %s; log: %s", e.Source.Short(), e.Why, e.Log)
}

// kernelArch is what the kernel's make calls each architecture (ARCH=),
// the target that builds the image kdelta boots, and where it lands.
var kernelArch = map[string]struct{ arch, target, image, cross string }{
	"amd64":   {"x86_64", "bzImage", "arch/x86/boot/bzImage", "x86_64-linux-gnu-"},
	"arm64":   {"arm64", "Image", "arch/arm64/boot/Image", "aarch64-linux-gnu-"},
	"ppc64le": {"powerpc", "vmlinux", "vmlinux", "powerpc64le-linux-gnu-"},
	"s390x":   {"s390", "bzImage", "arch/s390/boot/bzImage", "s390x-linux-gnu-"},
}

// CacheEnv names the environment variable that moves the build cache.
const CacheEnv = "KDELTA_KBUILD_CACHE"

// cacheRoot is opt.Cache, else $KDELTA_KBUILD_CACHE, else kdelta/kbuild
// in the user's cache directory.
func cacheRoot(opt *Options) (string, error) {
	if opt.Cache != "" {
		return opt.Cache, nil
	}
	if d := os.Getenv(CacheEnv); d != "" {
		return d, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("kernel build: no cache directory: %w", err)
	}
	return filepath.Join(dir, "kdelta", "kbuild"), nil
}

// A base is the base config, resolved: a file's contents or a make
// target.
type base struct {
	name   string // what the Kernel records
	target string // make target, or ""
	data   []byte // the file's contents, when no target
}

// baseConfig resolves opt.Config.
func baseConfig(cfg string) (*base, error) {
	if cfg == "defconfig" || cfg == "tinyconfig" || cfg == "allnoconfig" || strings.HasSuffix(cfg, "_defconfig") && !strings.Contains(cfg, "/") {
		return &base{name: cfg, target: cfg}, nil
	}
	if cfg != "" {
		data, err := os.ReadFile(cfg)
		if err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		if _, err := ParseConfig(data); err != nil {
			return nil, fmt.Errorf("--config %s: not a kernel config: %w", cfg, err)
		}
		return &base{name: cfg, data: data}, nil
	}
	// The running kernel's.
	if f, err := os.Open("/proc/config.gz"); err == nil {
		defer f.Close()
		if zr, err := gzip.NewReader(f); err == nil {
			if data, err := io.ReadAll(io.LimitReader(zr, 64<<20)); err == nil {
				return &base{name: "running kernel (/proc/config.gz)", data: data}, nil
			}
		}
	}
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		p := "/boot/config-" + strings.TrimSpace(string(rel))
		if data, err := os.ReadFile(p); err == nil {
			return &base{name: "running kernel (" + p + ")", data: data}, nil
		}
	}
	return &base{name: "defconfig", target: "defconfig"}, nil
}

// compilerID is the compiler's first line of --version, part of the
// cache key.
func compilerID(cc string) (string, error) {
	out, err := exec.Command(cc, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("kernel build: %s --version: %v (install gcc, make, flex, bison, bc, libelf-dev and libssl-dev to build kernels)", cc, err)
	}
	l, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(l), nil
}

func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Build builds src (or finds it built) and returns the kernel.
func Build(ctx context.Context, src *Source, opt *Options) (*Kernel, error) {
	arch := opt.Arch
	if arch == "" {
		arch = runtime.GOARCH
	}
	ka, ok := kernelArch[arch]
	if !ok {
		return nil, fmt.Errorf("kernel build: unknown architecture %q", arch)
	}
	frag, err := Fragment(arch)
	if err != nil {
		return nil, err
	}
	b, err := baseConfig(opt.Config)
	if err != nil {
		return nil, err
	}
	cross := ""
	if arch != runtime.GOARCH {
		cross = os.Getenv("CROSS_COMPILE")
		if cross == "" {
			cross = ka.cross
		}
	}
	cc := cross + "gcc"
	if _, err := exec.LookPath(cc); err != nil {
		return nil, fmt.Errorf("kernel build: %s not found: install it (and make, flex, bison, bc, libelf-dev, libssl-dev) to build %s kernels", cc, arch)
	}
	ccID, err := compilerID(cc)
	if err != nil {
		return nil, err
	}
	root, err := cacheRoot(opt)
	if err != nil {
		return nil, err
	}
	baseID := b.target
	if b.target == "" {
		baseID = "file " + hashOf(string(b.data))
	}
	cfgKey := hashOf("kdelta kbuild config 1", arch, baseID, frag, ccID)
	key := hashOf("kdelta kbuild 1", src.ID(), cfgKey)[:20]
	entry := filepath.Join(root, "kernels", key)
	if k, err := loadKernel(entry); err == nil {
		k.Cached = true
		return k, nil
	}
	if err := os.MkdirAll(entry, 0o755); err != nil {
		return nil, fmt.Errorf("kernel build: %w", err)
	}

	// The build directory is kept per tree and config, so the next
	// commit of a series rebuilds only what changed.
	name := filepath.Base(src.Dir)
	srcDir := src.Dir
	if src.Commit != "" {
		srcDir = filepath.Join(root, "src", name+"-"+hashOf(src.Dir)[:12])
	}
	out := filepath.Join(root, "build", name+"-"+hashOf(srcDir, cfgKey)[:12])
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("kernel build: %w", err)
	}
	unlock, err := lock(out + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another kdelta may have built it while this one waited.
	if k, err := loadKernel(entry); err == nil {
		k.Cached = true
		return k, nil
	}
	logPath := filepath.Join(entry, "build.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("kernel build: %w", err)
	}
	defer logf.Close()
	say := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "kdelta: kbuild: "+format+"\n", a...)
		}
	}
	fail := func(why string) error {
		return &BuildError{Source: src, Log: logPath, Why: why}
	}
	t0 := time.Now()
	if src.Commit != "" {
		if err := checkout(src, srcDir, logf); err != nil {
			return nil, fail(err.Error())
		}
	}
	localversion := "-g" + short(src.Commit)
	if src.Commit == "" {
		localversion = "-t" + short(src.Tree)
	}
	makeArgs := []string{"-C", srcDir, "O=" + out, "ARCH=" + ka.arch, "LOCALVERSION=" + localversion}
	if cross != "" {
		makeArgs = append(makeArgs, "CROSS_COMPILE="+cross)
	}
	ccacheNote := "without ccache (not installed)"
	if _, err := exec.LookPath("ccache"); err == nil {
		makeArgs = append(makeArgs, "CC=ccache "+cc)
		ccacheNote = "with ccache"
	}
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	run := func(progress string, args ...string) error {
		return runMake(ctx, logf, progress, opt, say, append(append([]string(nil), makeArgs...), args...)...)
	}

	// The config: the base, the fragment merged over it, olddefconfig.
	basePath := filepath.Join(out, "kdelta-base.config")
	if b.target != "" {
		if err := run("", b.target); err != nil {
			return nil, fail(lastError(logPath, "make "+b.target+": "+err.Error()))
		}
		data, err := os.ReadFile(filepath.Join(out, ".config"))
		if err != nil {
			return nil, fail(err.Error())
		}
		b.data = data
	}
	if err := os.WriteFile(basePath, b.data, 0o644); err != nil {
		return nil, fail(err.Error())
	}
	fragPath := filepath.Join(out, "kdelta-fragment.config")
	if err := os.WriteFile(fragPath, []byte(frag), 0o644); err != nil {
		return nil, fail(err.Error())
	}
	merge := exec.CommandContext(ctx, "sh", filepath.Join(srcDir, "scripts", "kconfig", "merge_config.sh"), "-m", "-O", out, basePath, fragPath)
	merge.Dir = out
	merge.Env = append(os.Environ(), "ARCH="+ka.arch)
	merge.Stdout, merge.Stderr = logf, logf
	fmt.Fprintf(logf, "kdelta: %s\n", strings.Join(merge.Args, " "))
	if err := merge.Run(); err != nil {
		return nil, fail(lastError(logPath, "merge_config.sh: "+err.Error()))
	}
	if err := run("", "olddefconfig"); err != nil {
		return nil, fail(lastError(logPath, "make olddefconfig: "+err.Error()))
	}
	final, err := os.ReadFile(filepath.Join(out, ".config"))
	if err != nil {
		return nil, fail(err.Error())
	}
	finalCfg, err := ParseConfig(final)
	if err != nil {
		return nil, fail(".config after olddefconfig: " + err.Error())
	}
	k := &Kernel{Source: src, Base: b.name, NotOn: notOn(frag, finalCfg), Log: logPath}
	if len(k.NotOn) > 0 {
		fmt.Fprintf(logf, "kdelta: options of the fragment the config does not have: %s\n", strings.Join(k.NotOn, " "))
	}
	say("building %s, base config %s, make -j%d %s; log: %s", src.Short(), b.name, jobs, ccacheNote, logPath)
	if err := run(src.Short(), fmt.Sprintf("-j%d", jobs), ka.target); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fail(lastError(logPath, "make: "+err.Error()))
	}
	rel, err := os.ReadFile(filepath.Join(out, "include", "config", "kernel.release"))
	if err != nil {
		return nil, fail("no include/config/kernel.release after the build: " + err.Error())
	}
	k.Release = strings.TrimSpace(string(rel))
	// The image and its config go into the entry, the config as
	// config-RELEASE beside the image, where vm looks for it.
	k.Image = filepath.Join(entry, filepath.Base(ka.image))
	k.Config = filepath.Join(entry, "config-"+k.Release)
	if err := copyFile(filepath.Join(out, ka.image), k.Image); err != nil {
		return nil, fail(err.Error())
	}
	if err := copyFile(filepath.Join(out, ".config"), k.Config); err != nil {
		return nil, fail(err.Error())
	}
	k.ConfigHash = hashBytes(final)
	k.Took = time.Since(t0).Round(time.Second)
	meta, _ := json.MarshalIndent(k, "", "  ")
	if err := writeAtomic(filepath.Join(entry, "kernel.json"), meta); err != nil {
		return nil, fail(err.Error())
	}
	say("built %s in %s: %s", src.Short(), k.Took, k.Image)
	return k, nil
}

func hashBytes(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// loadKernel reads the cache entry at dir: it holds a kernel only once
// kernel.json is written, last, and the image it names is there.
func loadKernel(dir string) (*Kernel, error) {
	data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		return nil, err
	}
	var k Kernel
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, err
	}
	if k.Source == nil || k.Image == "" || filepath.Dir(k.Image) != dir {
		return nil, errors.New("incomplete cache entry")
	}
	if _, err := os.Stat(k.Image); err != nil {
		return nil, err
	}
	return &k, nil
}

// checkout brings the cache's checkout of the repository to the commit:
// a repository of its own that borrows the objects of the user's (git's
// alternates), so the user's repository, index and working tree are left
// alone; git rewrites only the files that differ from the last commit
// checked out, which keeps make's rebuild small.
func checkout(src *Source, dir string, log io.Writer) error {
	objects, err := git(src.Dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return err
	}
	objects = filepath.Join(objects, "objects")
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if _, err := git(dir, "init", "-q"); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "objects", "info", "alternates"), []byte(objects+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "kdelta: checking out %s in %s\n", src.Commit, dir)
	if _, err := git(dir, "-c", "advice.detachedHead=false", "checkout", "-q", "-f", "--detach", src.Commit); err != nil {
		return fmt.Errorf("check out %s: %w", short(src.Commit), err)
	}
	if _, err := git(dir, "clean", "-q", "-f", "-d", "-x"); err != nil {
		return err
	}
	return nil
}

// runMake runs make with args, its output into log; with progress not "",
// a line every opt.Progress says how far it is.
func runMake(ctx context.Context, log io.Writer, progress string, opt *Options, say func(string, ...any), args ...string) error {
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	fmt.Fprintf(log, "kdelta: make %s\n", strings.Join(args, " "))
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var steps atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			l := sc.Bytes()
			log.Write(l)
			log.Write([]byte{'\n'})
			// kbuild's quiet lines: "  CC      kernel/sys.o".
			if len(l) > 2 && l[0] == ' ' && l[1] == ' ' && l[2] != ' ' {
				steps.Add(1)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	if err := cmd.Start(); err != nil {
		pw.Close()
		<-done
		return err
	}
	t0 := time.Now()
	every := opt.Progress
	if every <= 0 {
		every = 30 * time.Second
	}
	tick := time.NewTicker(every)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
loop:
	for {
		select {
		case err = <-waited:
			break loop
		case <-tick.C:
			if progress != "" {
				say("building %s: %d steps, %s", progress, steps.Load(), time.Since(t0).Round(time.Second))
			}
		}
	}
	tick.Stop()
	pw.Close()
	<-done
	return err
}

// lastError is the line of the log that says why the build failed: the
// last one with "error" in it, else the last line, else def.
func lastError(path, def string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.Contains(l, "error:") || strings.Contains(l, "Error ") && !strings.HasPrefix(l, "make") {
			return truncate(l, 300)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.Contains(l, "error") || strings.Contains(l, "Error") {
			return truncate(l, 300)
		}
	}
	return def
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return writeAtomic(to, data)
}

// writeAtomic writes data to path through a temporary file beside it.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// lock takes an exclusive lock on path, waiting for another kdelta's
// build of the same tree and config to end.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("kernel build: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("kernel build: lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
