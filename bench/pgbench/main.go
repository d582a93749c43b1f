// Command pgbench compares kdelta's pgbench workload with pgbench run by
// hand, as a person would, against an identical private server: initdb,
// pg_ctl start with the settings kdelta gives its server (unix socket only,
// shared_buffers 128MB, max_connections 100, fsync off), pgbench -i -s,
// then pgbench -c -j -T -b with the same figures. The two sides run
// interleaved, the side that goes first alternating, and it prints the
// median ratio of tps kdelta/by hand, which should be within ±10%, with
// each side's median and CV.
//
//	go run ./bench/pgbench -kdelta /path/to/kdelta [-pairs 5] [-duration 5]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

type config struct {
	kdelta                string
	bindir                string
	scale, clients, jobs  int
	duration              int
	script                string
	cred                  *syscall.Credential // the servers' user when root
	verbose               bool
	args                  []string // more arguments of kdelta run
	params                string   // more workload parameters
	sharedBuffers, maxCon string
}

func main() {
	var c config
	pairs := flag.Int("pairs", 5, "interleaved pairs (at least 3)")
	flag.StringVar(&c.kdelta, "kdelta", "", "path to the kdelta binary (required)")
	flag.StringVar(&c.bindir, "bindir", "", "PostgreSQL's bin directory (default: the newest /usr/lib/postgresql/*/bin)")
	flag.IntVar(&c.scale, "scale", 1, "pgbench -i -s")
	flag.IntVar(&c.clients, "clients", 2, "pgbench -c")
	flag.IntVar(&c.jobs, "jobs", 2, "pgbench -j")
	flag.IntVar(&c.duration, "duration", 5, "pgbench -T, seconds")
	flag.StringVar(&c.script, "script", "select-only", "pgbench -b: tpcb-like, simple-update or select-only")
	flag.BoolVar(&c.verbose, "v", false, "print every pair")
	flag.StringVar(&c.params, "params", "", "more parameters of kdelta's pgbench workload, k=v,... (e.g. sampling_rate=0.01)")
	extra := flag.String("args", "", "more arguments of kdelta run, space-separated (e.g. '--counters none' to see what counting costs)")
	flag.Parse()
	c.sharedBuffers, c.maxCon = "128MB", "100" // kdelta's defaults
	c.args = strings.Fields(*extra)
	if c.kdelta == "" || *pairs < 3 {
		fmt.Fprintln(os.Stderr, "pgbench: -kdelta PATH required, -pairs at least 3")
		os.Exit(2)
	}
	if err := c.setup(); err != nil {
		fmt.Fprintln(os.Stderr, "pgbench:", err)
		os.Exit(1)
	}
	var kd, ref, ratio []float64
	for i := 0; i < *pairs; i++ {
		got := map[bool]float64{}
		// Alternate which side goes first, so drift hits both equally.
		for _, kdSide := range []bool{i%2 == 1, i%2 == 0} {
			run := c.byHand
			if kdSide {
				run = c.viaKdelta
			}
			tps, err := run()
			if err != nil {
				fmt.Fprintf(os.Stderr, "pgbench: pair %d: %v\n", i+1, err)
				os.Exit(1)
			}
			got[kdSide] = tps
		}
		kd, ref = append(kd, got[true]), append(ref, got[false])
		ratio = append(ratio, got[true]/got[false])
		if c.verbose {
			fmt.Printf("pair %d: kdelta %.1f tps, by hand %.1f tps, ratio %.3f\n", i+1, got[true], got[false], got[true]/got[false])
		}
	}
	rs, ks, hs := stats.Summarize(ratio), stats.Summarize(kd), stats.Summarize(ref)
	r := rs.Median
	verdict := "within target"
	if math.Abs(r-1) > 0.10 {
		verdict = "OUTSIDE ±10%"
	}
	fmt.Printf("pgbench -b %s -s %d -c %d -j %d -T %d: tps kdelta/by hand median %.3f (spread %.3f-%.3f, %d pairs) %s\n",
		c.script, c.scale, c.clients, c.jobs, c.duration, r, rs.Min, rs.Max, rs.N, verdict)
	fmt.Printf("  kdelta  median %.1f tps, CV %.1f%%\n", ks.Median, ks.CV)
	fmt.Printf("  by hand median %.1f tps, CV %.1f%%\n", hs.Median, hs.CV)
}

// setup finds the binaries and the user the by-hand server runs as.
func (c *config) setup() error {
	if c.bindir == "" {
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
		for _, d := range dirs {
			if _, err := os.Stat(filepath.Join(d, "pgbench")); err == nil {
				c.bindir = d
				break
			}
		}
		if c.bindir == "" {
			return fmt.Errorf("no /usr/lib/postgresql/*/bin with pgbench: install the Debian package postgresql, or give -bindir")
		}
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("running as root needs a postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	}
	return nil
}

func major(dir string) float64 {
	f, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
	return f
}

// viaKdelta runs kdelta's pgbench once and returns its tps.
func (c *config) viaKdelta() (float64, error) {
	dir, err := os.MkdirTemp("", "bench-pgbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "r.json")
	spec := fmt.Sprintf("pgbench:scale=%d,clients=%d,jobs=%d,duration=%ds,script=%s,bindir=%s",
		c.scale, c.clients, c.jobs, c.duration, c.script, c.bindir)
	if c.params != "" {
		spec += "," + c.params
	}
	args := append([]string{"run", spec, "-r", "1", "--warmup", "0", "--no-store", "-o", path}, c.args...)
	out, err := exec.Command(c.kdelta, args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("kdelta run %s: %v: %s", spec, err, tail(string(out)))
	}
	s, err := result.Load(path)
	if err != nil {
		return 0, err
	}
	if len(s.Benchmarks) != 1 || len(s.Benchmarks[0].Runs) != 1 {
		return 0, fmt.Errorf("kdelta run %s wrote no run", spec)
	}
	r := s.Benchmarks[0].Runs[0]
	if r.Status != result.StatusOK {
		return 0, fmt.Errorf("kdelta run %s: %s: %s", spec, r.Status, r.Reason)
	}
	return r.Values["tps"], nil
}

// byHand makes a server as a person would, loads it, runs pgbench once,
// and removes the server.
func (c *config) byHand() (float64, error) {
	dir, err := os.MkdirTemp("", "bench-pgbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if c.cred != nil {
		if err := os.Chown(dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return 0, err
		}
	}
	data := filepath.Join(dir, "data")
	if _, err := c.server(dir, "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return 0, err
	}
	opts := fmt.Sprintf("-k %s -c listen_addresses='' -c unix_socket_permissions=0700 -c shared_buffers=%s -c max_connections=%s -c fsync=off",
		dir, c.sharedBuffers, c.maxCon)
	if _, err := c.server(dir, "pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "start"); err != nil {
		return 0, err
	}
	defer c.server(dir, "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
	conn := []string{"-h", dir, "-U", "postgres", "postgres"}
	if _, err := c.client(dir, append([]string{"-i", "-q", "-s", strconv.Itoa(c.scale)}, conn...)...); err != nil {
		return 0, err
	}
	out, err := c.client(dir, append([]string{"-b", c.script, "-c", strconv.Itoa(c.clients), "-j", strconv.Itoa(c.jobs),
		"-T", strconv.Itoa(c.duration)}, conn...)...)
	if err != nil {
		return 0, err
	}
	m := regexp.MustCompile(`tps = ([0-9.]+) \((without initial|excluding)`).FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench printed no tps: %s", tail(out))
	}
	return strconv.ParseFloat(m[1], 64)
}

// server runs a program of bindir as the server's user.
func (c *config) server(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(c.bindir, name), args...)
	cmd.Dir = dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return run(cmd)
}

// client runs pgbench as ourselves.
func (c *config) client(dir string, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(c.bindir, "pgbench"), args...)
	cmd.Dir = dir
	return run(cmd)
}

func run(cmd *exec.Cmd) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, tail(out.String()))
	}
	return out.String(), nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = "..." + s[len(s)-300:]
	}
	return s
}
