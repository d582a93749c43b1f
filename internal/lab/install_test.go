package lab_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kdelta agent install writes a unit that starts the agent at boot and
// again when it exits, with the lab's URL in a file only root reads and
// nowhere in the unit; systemd's own checker accepts the unit.
func TestAgentInstall(t *testing.T) {
	m := newMachine(t)
	dir := t.TempDir()
	env := filepath.Join(dir, "etc", "kdelta", "agent.env")
	url := "postgres://lab_agent_login:" + pgPassword + "@db.lab:5432/lab"
	out := m.ok("agent", "install", "--store", url, "--name", "p10-a", "--labels", "arch=ppc64le,smt=8",
		"--unit-dir", dir, "--env-file", env, "--exe", kdelta)
	unitPath := filepath.Join(dir, "kdelta-agent.service")
	if !strings.Contains(out, "wrote "+env+"\n") || !strings.Contains(out, "wrote "+unitPath+"\n") || strings.Contains(out, pgPassword) {
		t.Errorf("agent install printed %q", out)
	}
	unit := readFile(t, unitPath)
	for _, want := range []string{
		"ExecStart=" + kdelta + " agent --name p10-a --labels arch=ppc64le,smt=8\n",
		"EnvironmentFile=" + env + "\n",
		"Restart=always\n",
		"\nWantedBy=multi-user.target",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	if strings.Contains(unit, pgPassword) || strings.Contains(unit, "postgres://") {
		t.Errorf("the unit shows the lab's URL:\n%s", unit)
	}
	if got := readFile(t, env); !strings.HasSuffix(got, "\nKDELTA_STORE="+url) {
		t.Errorf("env file %q", got)
	}
	if fi, err := os.Stat(env); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("env file mode %v (%v), want 0600", fi.Mode(), err)
	}
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		if b, err := exec.Command(sa, "verify", unitPath).CombinedOutput(); err != nil {
			t.Errorf("systemd-analyze verify: %v\n%s", err, b)
		}
	}
	for _, args := range [][]string{
		{"--unit-dir", filepath.Join(dir, "nonexistent")},
		{"--unit-dir", dir, "--name", "bad name"},
		{"--unit-dir", dir, "--exe", "kdelta"},
		{"--unit-dir", dir, "--labels", "smt"},
	} {
		_, errs, code := m.run(append([]string{"agent", "install"}, args...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("agent install %v: exit %d, %q; want 2 and one line", args, code, errs)
		}
	}
}
