package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// InstallOptions say what kdelta agent install writes.
type InstallOptions struct {
	// Exe is the kdelta binary the unit starts (default: this one).
	Exe string
	// Store is the lab's database; it goes into EnvFile as
	// KDELTA_STORE, readable by root only, never into the unit.
	Store string
	// Name, Labels and Lease are the agent's flags.
	Name   string
	Labels Labels
	Lease  time.Duration
	// UnitDir is where the unit goes (default /etc/systemd/system), and
	// EnvFile the environment file it reads (default
	// /etc/kdelta/agent.env).
	UnitDir, EnvFile string
}

// Defaults of InstallOptions.
const (
	DefaultUnitDir = "/etc/systemd/system"
	DefaultEnvFile = "/etc/kdelta/agent.env"
	UnitName       = "kdelta-agent.service"
)

// Install writes the systemd unit that starts the agent at every boot and
// again when it exits, so that a machine a boot step rebooted (kexec)
// comes back to its lab by itself; and, with a store, the environment
// file that holds its URL. It returns the paths written. It enables
// nothing: systemctl daemon-reload and enable --now are the user's.
func Install(o InstallOptions) ([]string, error) {
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("agent install: %w", err)
		}
		o.Exe = exe
	}
	if !filepath.IsAbs(o.Exe) {
		return nil, fmt.Errorf("agent install: --exe %s: give an absolute path", o.Exe)
	}
	if o.Name != "" {
		if err := checkName(o.Name); err != nil {
			return nil, err
		}
	}
	if o.UnitDir == "" {
		o.UnitDir = DefaultUnitDir
	}
	if o.EnvFile == "" {
		o.EnvFile = DefaultEnvFile
	}
	if !filepath.IsAbs(o.EnvFile) {
		return nil, fmt.Errorf("agent install: --env-file %s: give an absolute path", o.EnvFile)
	}
	for _, s := range []string{o.Exe, o.EnvFile, o.Store} {
		if strings.ContainsAny(s, "\"\\\n%$") {
			return nil, fmt.Errorf("agent install: %q: quotes, backslashes, %% and $ do not go into a unit", Redact(s))
		}
	}
	if fi, err := os.Stat(o.UnitDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("agent install: --unit-dir %s: not a directory", o.UnitDir)
	}
	var written []string
	if o.Store != "" {
		if err := os.MkdirAll(filepath.Dir(o.EnvFile), 0o755); err != nil {
			return nil, fmt.Errorf("agent install: %w", err)
		}
		if err := writeFile(o.EnvFile, "# Written by kdelta agent install: the lab the agent works for.\nKDELTA_STORE="+o.Store+"\n", 0o600); err != nil {
			return nil, err
		}
		written = append(written, o.EnvFile)
	}
	unit := filepath.Join(o.UnitDir, UnitName)
	if err := writeFile(unit, unitText(o), 0o644); err != nil {
		return written, err
	}
	return append(written, unit), nil
}

// unitText is the unit Install writes.
func unitText(o InstallOptions) string {
	exec := []string{quoteUnit(o.Exe), "agent"}
	if o.Name != "" {
		exec = append(exec, "--name", o.Name)
	}
	if len(o.Labels) > 0 {
		exec = append(exec, "--labels", o.Labels.String())
	}
	if o.Lease > 0 && o.Lease != DefaultLease {
		exec = append(exec, "--lease", o.Lease.String())
	}
	env := ""
	if o.Store != "" {
		env = "EnvironmentFile=" + quoteUnit(o.EnvFile) + "\n"
	}
	return `# Written by kdelta agent install.
[Unit]
Description=kdelta lab agent
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
` + env + `ExecStart=` + strings.Join(exec, " ") + `
# Started again when it exits; at boot, after a boot step's kexec, it
# checks the kernel the job asked for.
Restart=always
RestartSec=5
# SIGTERM lets the run under way finish and hands the job back.
KillMode=mixed
TimeoutStopSec=15min

[Install]
WantedBy=multi-user.target
`
}

// quoteUnit quotes s for a unit file when it holds a space.
func quoteUnit(s string) string {
	if strings.ContainsAny(s, " \t") {
		return `"` + s + `"`
	}
	return s
}

// writeFile writes data to path through a temporary file beside it.
func writeFile(path, data string, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), perm); err != nil {
		return fmt.Errorf("agent install: %w", err)
	}
	if err := os.Chmod(tmp, perm); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("agent install: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("agent install: %w", err)
	}
	return nil
}
