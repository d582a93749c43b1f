package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Kind is the River kind of a lab job.
const Kind = "kdelta"

// Commands are the kdelta commands a lab job may run, and noop, which an
// agent completes at once without measuring: a probe of the dispatch
// (bench/lab.sh) and of an agent's health. A vm job boots its kernels in
// qemu on the agent; it writes its sets when its last boot is done, so it
// is stored whole rather than run by run.
var Commands = []string{"run", "ab", "stat", "vm", "noop"}

// JobArgs describe one lab job: a kdelta command line that the agent runs
// with the runs recorded in the lab's store.
type JobArgs struct {
	// Command is run, ab, stat or noop; Args follow it.
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// Runs is the measured runs asked of each benchmark and cell, which a
	// job run again completes rather than repeats; 0 for a vm job, whose
	// boots say.
	Runs int `json:"runs"`
	// Until says the session stops when it is conclusive (after at least
	// Runs runs).
	Until bool `json:"until,omitempty"`
	// Select is the labels the job asked of its agent (k=v,...), and
	// Agent the agent it was queued for.
	Select string `json:"select,omitempty"`
	Agent  string `json:"agent"`
	// Boot, when set, makes the job a boot step: the agent boots Boot's
	// kernel by kexec, and once the machine runs it, completes this job
	// in the transaction that queues the measuring step, the same command
	// line with Booted set.
	Boot *Boot `json:"boot,omitempty"`
	// Booted says the boot a measuring step runs in: it measures nothing
	// in another.
	Booted *Booted `json:"booted,omitempty"`
}

// A Boot is the kernel a boot step starts by kexec, its files named by
// their paths on the agent's machine.
type Boot struct {
	Kernel string `json:"kernel"`
	Initrd string `json:"initrd,omitempty"`
	// Append follows the running kernel's command line (its root=,
	// console=...) on the new kernel's; /proc/cmdline must show the
	// whole line after the boot.
	Append string `json:"append,omitempty"`
	// Deadline is how long the kernel has to come back, from the agent's
	// record of the boot to its check after it.
	Deadline time.Duration `json:"deadline_ns"`
}

// Booted is the boot a boot step made: the job, the release and the boot
// id.
type Booted struct {
	Job     int64  `json:"job"`
	Release string `json:"release"`
	BootID  string `json:"boot_id"`
}

// DefaultBootDeadline is a boot step's deadline unless the job gives one.
const DefaultBootDeadline = 10 * time.Minute

// Kind is River's name for the job's kind.
func (JobArgs) Kind() string { return Kind }

// CommandLine is the job as a kdelta command line.
func (a JobArgs) CommandLine() string {
	return strings.Join(append([]string{a.Command}, a.Args...), " ")
}

// Describe is the job in a table of jobs: its command line, after the
// kernel a boot step boots, or with the boot step a measuring step
// follows.
func (a JobArgs) Describe() string {
	switch {
	case a.Boot != nil:
		return "kexec " + filepath.Base(a.Boot.Kernel) + ", then " + a.CommandLine()
	case a.Booted != nil:
		return fmt.Sprintf("%s (booted by job %d)", a.CommandLine(), a.Booted.Job)
	}
	return a.CommandLine()
}

// Labels are an agent's labels or a job's selection: name=value pairs.
type Labels map[string]string

var labelName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ParseLabels reads k=v[,k=v...]; where names the flag in errors.
func ParseLabels(s, where string) (Labels, error) {
	l := Labels{}
	if strings.TrimSpace(s) == "" {
		return l, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || !labelName.MatchString(k) || !labelName.MatchString(v) {
			return nil, fmt.Errorf("%s: %q is not NAME=VALUE (letters, digits, _ . -)", where, kv)
		}
		if _, dup := l[k]; dup {
			return nil, fmt.Errorf("%s: label %s twice", where, k)
		}
		l[k] = v
	}
	return l, nil
}

// String writes the labels as ParseLabels reads them, sorted.
func (l Labels) String() string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}

// Match tells whether an agent with labels l has every label of sel.
func (l Labels) Match(sel Labels) bool {
	for k, v := range sel {
		if l[k] != v {
			return false
		}
	}
	return true
}

var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// checkName refuses agent names that are not host-name-like.
func checkName(name string) error {
	if !agentName.MatchString(name) || len(name) > 200 {
		return fmt.Errorf("--name: %q is not an agent name (letters, digits, _ . -)", name)
	}
	return nil
}

var notQueue = regexp.MustCompile(`[^a-z0-9]+`)

// queueOf is the River queue of the agent named name: its name in the
// letters River allows, and a digest of the name when that alone could
// be mistaken for another's.
func queueOf(name string) string {
	s := strings.Trim(notQueue.ReplaceAllString(strings.ToLower(name), "_"), "_")
	if s == strings.ToLower(name) && len(s) <= 48 {
		return "agent_" + s
	}
	sum := sha256.Sum256([]byte(name))
	if len(s) > 40 {
		s = s[:40]
	}
	return strings.Trim("agent_"+s, "_") + "_" + hex.EncodeToString(sum[:4])
}
