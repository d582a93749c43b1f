package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kdelta/kdelta/internal/sys"
)

// The PostgreSQL workloads (pgbench, sysbench) run their client against a
// server of their own that this file starts and removes: initdb in a
// private directory, a unix socket there and no TCP port, the server's
// settings from the workload's parameters.
//
// Counters (-e) and profiles (--profile) follow the measured child and
// every process it creates after the go-ahead (perf's inherit), and the
// kernel time of a database benchmark is mostly the server's. So the
// server is started from the child, twice: once, before the go-ahead, to
// load the data (pgbench -i, sysbench prepare), which is neither timed nor
// counted; and again after it, so that the postmaster and every backend it
// forks are counted with the client. The second start costs a few tens of
// milliseconds of counted work and begins with cold shared buffers (the
// data is still in the page cache).
//
// Nothing may outlive kdelta: the postmaster is in the child's process
// group with PR_SET_PDEATHSIG, which the runner kills on timeout,
// interrupt and kdelta's death; its backends leave that group (every
// postmaster child calls setsid) and exit when the postmaster dies. The
// directory, the socket and the System V segment a killed postmaster
// leaves are removed by a reaper: a helper in a session of its own,
// started before the go-ahead, that waits for the child to die (the end
// of a pipe only the child holds), kills any process still working in the
// directory, and removes it.

const (
	// pgDBUser is the database superuser initdb makes; clients connect
	// as it, over the socket, with trust authentication.
	pgDBUser = "postgres"
	// pgDB is the database the workloads use.
	pgDB = "postgres"
	// pgPort names the socket file (.s.PGSQL.5432); the server listens on
	// no TCP port.
	pgPort = "5432"
	// rolePGReaper is the helper that removes a server's directory when
	// the measured child dies.
	rolePGReaper = "postgres-reaper"
	// pgDebianPackage is what a Debian machine installs for initdb,
	// postgres and pgbench.
	pgDebianPackage = "postgresql"
)

func init() { RegisterWorker(rolePGReaper, pgReaperMain) }

// pgServerParams are the server's parameters, shared by the PostgreSQL
// workloads.
func pgServerParams() []Param {
	return []Param{
		{Name: "shared_buffers", Default: "128MB", Doc: "the server's shared_buffers (PostgreSQL's default, 128MB)"},
		{Name: "max_connections", Kind: Int, Default: "100", Min: 1, Doc: "the server's max_connections"},
		{Name: "fsync", Kind: Bool, Default: "false",
			Doc: "the server's fsync: off by default, so a run measures the kernel's scheduling and memory, not the disk's flush"},
		{Name: "bindir", Default: "auto",
			Doc: "directory of initdb, postgres and pgbench; auto: initdb's on PATH, else the newest /usr/lib/postgresql/*/bin"},
	}
}

var pgMemSize = regexp.MustCompile(`^[0-9]+(kB|MB|GB|TB)?$`)

// pgValidate checks the server's parameters for clients connections.
func pgValidate(v Values, clients int, what string) error {
	if sb := v.String("shared_buffers"); !pgMemSize.MatchString(sb) {
		return fmt.Errorf("parameter shared_buffers %q: want a size as PostgreSQL writes it (128MB, 1GB, 16384 for 8kB pages)", sb)
	}
	if mc := v.Int("max_connections"); clients+1 > mc {
		return fmt.Errorf("parameter %s=%d needs max_connections ≥ %d (one more for kdelta's own), not %d", what, clients, clients+1, mc)
	}
	return nil
}

// pgDuration checks that parameter name is whole seconds, at least one:
// pgbench -T and sysbench --time take seconds.
func pgDuration(v Values, name string) error {
	d := v.Duration(name)
	if d < time.Second || d%time.Second != 0 {
		return fmt.Errorf("parameter %s %q: want whole seconds, at least 1s", name, v.String(name))
	}
	return nil
}

// capDuration returns a copy of v with the duration parameter name at most
// max.
func capDuration(v Values, name string, max time.Duration) Values {
	w := make(Values, len(v))
	for k, x := range v {
		w[k] = x
	}
	if v.Duration(name) > max {
		w[name] = max.String()
	}
	return w
}

// pgBinDir returns the directory that holds initdb and postgres for
// parameter bindir, or why there is none.
func pgBinDir(bindir string) (dir, reason string) {
	has := func(d string) bool {
		return isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres"))
	}
	if bindir != "auto" {
		if !has(bindir) {
			return "", fmt.Sprintf("bindir %s holds no initdb and postgres (the Debian package %s installs them in /usr/lib/postgresql/N/bin)", bindir, pgDebianPackage)
		}
		return bindir, ""
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		// Debian's /usr/lib/postgresql/N/bin/initdb is often linked from
		// elsewhere: postgres is beside the link's target.
		if real, err := filepath.EvalSymlinks(p); err == nil && has(filepath.Dir(real)) {
			return filepath.Dir(real), ""
		}
		if has(filepath.Dir(p)) {
			return filepath.Dir(p), ""
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) > pgMajor(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, ""
		}
	}
	return "", "PostgreSQL server not installed (no initdb and postgres on PATH or in /usr/lib/postgresql/*/bin): install the Debian package " + pgDebianPackage
}

// pgMajor reads the version of a /usr/lib/postgresql/N/bin path.
func pgMajor(dir string) float64 {
	f, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
	return f
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// pgClient returns the path of a client program: the server's bindir's,
// else PATH's.
func pgClient(bindir, name string) (string, bool) {
	if p := filepath.Join(bindir, name); isExecutable(p) {
		return p, true
	}
	p, err := exec.LookPath(name)
	return p, err == nil
}

// pgServerUser returns the user the server runs as and the credential
// that drops to it: PostgreSQL refuses to run as root, so when kdelta is
// root the server runs as postgres (nobody when there is no such user);
// otherwise as kdelta's own user, with no credential change.
func pgServerUser() (name string, cred *syscall.Credential, err error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return strconv.Itoa(os.Geteuid()), nil, nil
		}
		return u.Username, nil, nil
	}
	for _, n := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(n)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return n, &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
	}
	return "", nil, errors.New("PostgreSQL refuses to run as root, and neither a postgres nor a nobody user exists to run it as")
}

// pgPrecheck returns why the server cannot run here, or "".
func pgPrecheck(v Values) string {
	if _, reason := pgBinDir(v.String("bindir")); reason != "" {
		return reason
	}
	if _, _, err := pgServerUser(); err != nil {
		return err.Error()
	}
	return ""
}

// A pgServer is a private PostgreSQL server and its directory.
type pgServer struct {
	bin  string // bindir
	dir  string // private: data/, the socket, logs
	data string
	user string              // the OS user the server runs as
	cred *syscall.Credential // nil: kdelta's own user
	env  []string
	conf []string // -c settings of every start

	cmd    *exec.Cmd // the running postmaster
	exited chan struct{}
	werr   error

	reaper    *os.File // write end: its close tells the reaper to clean up
	reaperCmd *exec.Cmd
}

// newPGServer makes the server's directory, starts its reaper and runs
// initdb. Call close when done, whatever happens.
func newPGServer(v Values) (*pgServer, error) {
	bin, reason := pgBinDir(v.String("bindir"))
	if reason != "" {
		return nil, Skip("%s", reason)
	}
	name, cred, err := pgServerUser()
	if err != nil {
		return nil, Skip("%s", err.Error())
	}
	dir, err := os.MkdirTemp("", "kdelta-postgres-")
	if err != nil {
		return nil, fmt.Errorf("postgres directory: %w", err)
	}
	s := &pgServer{bin: bin, dir: dir, data: filepath.Join(dir, "data"), user: name, cred: cred, env: pgEnv()}
	s.conf = []string{
		"listen_addresses=",
		"unix_socket_permissions=0700",
		"shared_buffers=" + v.String("shared_buffers"),
		"max_connections=" + v.String("max_connections"),
		"fsync=" + strconv.FormatBool(v.Bool("fsync")),
	}
	if err := s.startReaper(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.prepareDir(); err != nil {
		s.close()
		return nil, err
	}
	if _, err := s.runServerTool("initdb", "-D", s.data, "-U", pgDBUser, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// pgEnv is the environment of the server and its clients: kdelta's,
// without the child's runtime settings and without libpq's variables
// (PGHOST, PGOPTIONS, ...), which could point a client elsewhere; in the C
// locale so the clients' figures parse.
func pgEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "KDELTA_JOB=") || strings.HasPrefix(kv, "GODEBUG=") ||
			strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}

// startReaper starts the helper that removes the directory after this
// process dies. It is not started through the spawner, and in a session
// of its own: it must outlive this process (no PR_SET_PDEATHSIG) and its
// process group, which are what take the server down.
func (s *pgServer) startReaper() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("postgres reaper: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("postgres reaper: %w", err)
	}
	cmd := exec.Command(exe, WorkerArg, rolePGReaper, "1", s.dir)
	cmd.ExtraFiles = []*os.File{r}
	cmd.Stderr = os.Stderr
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return fmt.Errorf("postgres reaper: %w", err)
	}
	s.reaper, s.reaperCmd = w, cmd
	return nil
}

// prepareDir gives the directory to the server's user and checks that it
// can reach it and that the socket's path fits.
func (s *pgServer) prepareDir() error {
	if err := os.Chmod(s.dir, 0o700); err != nil {
		return err
	}
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return fmt.Errorf("give %s to %s: %w", s.dir, s.user, err)
		}
		if err := searchable(filepath.Dir(s.dir), s.cred.Uid, s.cred.Gid); err != nil {
			return fmt.Errorf("the server runs as %s, who %w: set TMPDIR to a directory it can reach", s.user, err)
		}
	}
	// sun_path holds 108 bytes with its terminating NUL.
	if sock := filepath.Join(s.dir, ".s.PGSQL."+pgPort); len(sock) > 107 {
		return fmt.Errorf("the server's socket %s is longer than a unix socket path may be (107 bytes): set TMPDIR to a shorter directory", sock)
	}
	return nil
}

// searchable checks that user uid of group gid may search dir and every
// directory above it.
func searchable(dir string, uid, gid uint32) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("cannot stat %s: %w", d, err)
		}
		bit := os.FileMode(0o001)
		if o, ok := st.Sys().(*syscall.Stat_t); ok {
			switch {
			case o.Uid == uid:
				bit = 0o100
			case o.Gid == gid:
				bit = 0o010
			}
		}
		if st.Mode().Perm()&bit == 0 {
			return fmt.Errorf("cannot search %s (mode %s)", d, st.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// serverCmd returns a command that runs program name of bindir as the
// server's user, in the directory.
func (s *pgServer) serverCmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = s.env
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

// runServerTool runs a program of bindir (initdb) as the server's user
// and returns its output.
func (s *pgServer) runServerTool(name string, args ...string) (string, error) {
	out, _, err := s.run(s.serverCmd(name, args...))
	return out, err
}

// clientCmd returns a command that runs client program path (pgbench,
// sysbench) as kdelta's user, in the directory, which is where pgbench
// writes its transaction logs.
func (s *pgServer) clientCmd(path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Dir = s.dir
	cmd.Env = s.env
	return cmd
}

// run runs cmd to its end from the spawner's thread (so it dies with this
// process), its output in a file of the directory: a file, not a pipe, so
// no goroutine of this process copies output while the client runs. It
// returns the output and how the process ended; a failure's error holds
// the output's last lines.
func (s *pgServer) run(cmd *exec.Cmd) (string, *os.ProcessState, error) {
	name := filepath.Base(cmd.Path)
	f, err := os.CreateTemp(s.dir, name+"-*.out")
	if err != nil {
		return "", nil, fmt.Errorf("%s output: %w", name, err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	if err := sys.DefaultSpawner().Start(cmd, sys.SpawnOptions{}); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", name, err)
	}
	werr := cmd.Wait()
	b, _ := os.ReadFile(f.Name())
	out := lastBytes(string(b), outputKeep)
	if werr != nil {
		return out, cmd.ProcessState, fmt.Errorf("%s: %v; last output:\n%s", name, werr, lastLines(out, errorLines))
	}
	return out, cmd.ProcessState, nil
}

// start starts the postmaster as the server's user and returns a
// connection once it accepts them.
func (s *pgServer) start(ctx context.Context) (*pgConn, error) {
	args := []string{"-D", s.data, "-k", s.dir, "-p", pgPort}
	for _, c := range s.conf {
		args = append(args, "-c", c)
	}
	cmd := s.serverCmd("postgres", args...)
	logf, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	// In this process's group, from the spawner's thread with
	// PR_SET_PDEATHSIG: the runner's kill of the group, and this process's
	// death, take the postmaster down.
	if err := sys.DefaultSpawner().Start(cmd, sys.SpawnOptions{}); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() {
		s.werr = cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := s.connect(ctx)
		if err == nil {
			return c, nil
		}
		select {
		case <-s.exited:
			s.cmd = nil
			return nil, fmt.Errorf("postgres exited at start (%v); its log ends:\n%s", s.werr, s.logTail())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("postgres accepts no connection after 60 s (%v); its log ends:\n%s", err, s.logTail())
		}
	}
}

func (s *pgServer) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	return lastLines(string(b), errorLines)
}

// connect opens a connection over the socket.
func (s *pgServer) connect(ctx context.Context) (*pgConn, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return pgDial(ctx, s.dir, pgPort, pgDBUser, pgDB)
}

// stop sends the postmaster sig (SIGINT: fast shutdown, with its
// checkpoint; SIGQUIT: immediate) and waits for it, killing it after
// grace.
func (s *pgServer) stop(sig syscall.Signal, grace time.Duration) {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
	case <-time.After(grace):
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// close stops the server, removes the directory with everything in it
// and lets the reaper go.
func (s *pgServer) close() {
	s.stop(syscall.SIGQUIT, 10*time.Second)
	pgCleanup(s.dir)
	if s.reaper != nil {
		s.reaper.Close()
		s.reaperCmd.Wait()
		s.reaper = nil
	}
}

// record notes the server's identity and settings in the run's info.
func (s *pgServer) record(ctx context.Context, t *Task, c *pgConn) error {
	t.Info("server_bindir", s.bin)
	t.Info("server_user", s.user)
	t.Info("server_listen", "unix socket only")
	for _, name := range []string{"server_version", "shared_buffers", "max_connections", "fsync"} {
		row, err := c.queryRow(ctx, "SHOW "+name)
		if err != nil {
			return fmt.Errorf("SHOW %s: %w", name, err)
		}
		t.Info(name, row[0])
	}
	return nil
}

// pgStatNames are the pg_stat_database counters a run records, as deltas
// over its timed part.
var pgStatNames = []string{"xact_commit", "xact_rollback", "blks_read", "blks_hit", "tup_returned", "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted"}

// stats reads the database's pg_stat_database counters.
func pgStats(ctx context.Context, c *pgConn) (map[string]float64, error) {
	q := "SELECT " + strings.Join(pgStatNames, ", ") + " FROM pg_stat_database WHERE datname = current_database()"
	row, err := c.queryRow(ctx, q)
	if err == nil && len(row) != len(pgStatNames) {
		err = fmt.Errorf("%d columns, want %d", len(row), len(pgStatNames))
	}
	if err != nil {
		return nil, fmt.Errorf("pg_stat_database: %w", err)
	}
	m := map[string]float64{}
	for i, n := range pgStatNames {
		v, err := strconv.ParseInt(row[i], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("pg_stat_database: %s: %w", n, err)
		}
		m[n] = float64(v)
	}
	return m, nil
}

// pgClientsGone waits until no client backend but c's own is left, so
// that the backends of a finished client have flushed their counters
// (they do as they exit, just after leaving pg_stat_activity: hence the
// short pause).
func pgClientsGone(ctx context.Context, c *pgConn) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		row, err := c.queryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
		if err != nil {
			return fmt.Errorf("pg_stat_activity: %w", err)
		}
		n, err := strconv.Atoi(row[0])
		if err != nil {
			return fmt.Errorf("pg_stat_activity: %w", err)
		}
		if n == 0 {
			time.Sleep(50 * time.Millisecond)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d client backends still connected 10 s after the client exited", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// session is one measured run against s, as pgbench and sysbench share
// it: the load (tool with load args) against a first start, neither timed
// nor counted; then, after the go-ahead, a second start whose settings are
// recorded, and the client (tool with args) with the pg_stat_database
// counters taken around it, once its backends have gone. It returns the
// client's output.
func (s *pgServer) session(ctx context.Context, t *Task, tool, loadWhat string, load, args []string) (string, error) {
	c, err := s.start(ctx)
	if err != nil {
		return "", err
	}
	c.close()
	if _, _, err := s.run(s.clientCmd(tool, load...)); err != nil {
		return "", fmt.Errorf("%s: %w", loadWhat, err)
	}
	s.stop(syscall.SIGINT, time.Minute)

	if err := t.Ready(); err != nil {
		return "", err
	}
	if c, err = s.start(ctx); err != nil {
		return "", err
	}
	defer c.close()
	if err := s.record(ctx, t, c); err != nil {
		return "", err
	}
	before, err := pgStats(ctx, c)
	if err != nil {
		return "", err
	}
	t.Info("argv", quoteArgv(append([]string{filepath.Base(tool)}, args...)))
	out, ps, err := s.run(s.clientCmd(tool, args...))
	if eerr := t.End(); err == nil && eerr != nil {
		return "", eerr
	}
	countClient(t, ps)
	if err != nil {
		t.Info("output_tail", lastBytes(out, outputTail))
		return "", err
	}
	if err := pgClientsGone(ctx, c); err != nil {
		return "", err
	}
	after, err := pgStats(ctx, c)
	if err != nil {
		return "", err
	}
	countStatDeltas(t, before, after)
	return out, nil
}

// countStatDeltas records after − before of every pg_stat_database
// counter.
func countStatDeltas(t *Task, before, after map[string]float64) {
	for _, n := range pgStatNames {
		t.Count(n, after[n]-before[n])
	}
}

// countClient records what the client process used, from its rusage, so
// that a reader can tell the client's share of the run's counters from
// the server's.
func countClient(t *Task, ps *os.ProcessState) {
	if ps == nil {
		return
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		t.Count("client_ctxsw", float64(ru.Nvcsw+ru.Nivcsw))
		t.Count("client_cpu_s", tv(ru.Utime)+tv(ru.Stime))
	}
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// pgCleanup kills whatever still works in dir (a postmaster and backends
// left by a killed run), removes the System V segment a killed postmaster
// leaves, and removes dir. A dir already gone is no error.
func pgCleanup(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	pid, shmid := readPostmasterPID(filepath.Join(dir, "data", "postmaster.pid"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := processesIn(dir)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v still run in %s", pids, dir)
		}
		for _, p := range pids {
			sys.Signal(p, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var errs []error
	if pid > 0 && shmid >= 0 {
		// A process gives up its memory before its working directory
		// as it exits (do_exit: exit_mm, then exit_fs), so with no
		// process left in dir the segment has no one attached.
		if _, err := sys.RemoveOrphanShm(shmid, pid); err != nil {
			errs = append(errs, fmt.Errorf("remove the shared memory segment %d of postmaster %d: %w", shmid, pid, err))
		}
	}
	return errors.Join(append(errs, os.RemoveAll(dir))...)
}

// readPostmasterPID reads the postmaster's pid (line 1) and its System V
// shared memory id (line 7: key and id) from postmaster.pid; -1 for what
// it cannot read.
func readPostmasterPID(path string) (pid, shmid int) {
	pid, shmid = -1, -1
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	lines := strings.Split(string(b), "\n")
	if n, err := strconv.Atoi(strings.TrimSpace(lines[0])); err == nil {
		pid = n
	}
	if len(lines) >= 7 {
		if f := strings.Fields(lines[6]); len(f) == 2 {
			if n, err := strconv.Atoi(f[1]); err == nil {
				shmid = n
			}
		}
	}
	return
}

// processesIn lists the processes, other than this one, whose working
// directory is dir or below it: every PostgreSQL process works in its
// data directory, and the clients in dir.
func processesIn(dir string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil {
			continue
		}
		cwd = strings.TrimSuffix(cwd, " (deleted)")
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// pgReaperMain is the reaper: it waits until every writer of fd 3 (the
// measured child) is gone, then cleans the directory up.
func pgReaperMain(args []string, files []*os.File) error {
	if len(args) != 1 || len(files) != 1 {
		return fmt.Errorf("want one directory and one pipe, got %q and %d files", args, len(files))
	}
	io.Copy(io.Discard, files[0])
	return pgCleanup(args[0])
}
