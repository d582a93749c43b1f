package vm

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/sys"
)

// KVM can create VMs and still never start a kernel: under nested
// virtualization on some clouds qemu aborts as it sets up the vCPU
// ("failed to set MSR 0x10a"), or the guest hangs before its first line.
// An abort costs only qemu's start, but a hang costs a boot deadline, so
// auto remembers a KVM that failed to start a kernel (either way) for as
// long as the host stays up with the same qemu: the record is keyed by the
// host's boot_id and qemu's path, size and modification time.
type kvmProbe struct {
	BootID string    `json:"boot_id"`
	Qemu   string    `json:"qemu"`
	When   time.Time `json:"when"`
}

// probeFile is where the failed probe is remembered; "" when there is no
// cache directory.
func probeFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "kdelta", "kvm-probe.json")
}

// qemuKey identifies the qemu binary.
func qemuKey(qemu string) string {
	fi, err := os.Stat(qemu)
	if err != nil {
		return qemu
	}
	return fmt.Sprintf("%s %d %d", qemu, fi.Size(), fi.ModTime().Unix())
}

func hostBootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// kvmFailedBefore tells whether KVM failed to start a kernel with this
// qemu since the host booted.
func kvmFailedBefore(file, qemu string) bool {
	if file == "" {
		return false
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	var p kvmProbe
	if json.Unmarshal(b, &p) != nil {
		return false
	}
	id := hostBootID()
	return id != "" && p.BootID == id && p.Qemu == qemuKey(qemu)
}

// rememberKVM records whether KVM started a kernel: a failure is written,
// a success removes the record.
func rememberKVM(file, qemu string, booted bool) {
	if file == "" {
		return
	}
	if booted {
		os.Remove(file)
		return
	}
	id := hostBootID()
	if id == "" {
		return
	}
	b, _ := json.Marshal(kvmProbe{BootID: id, Qemu: qemuKey(qemu), When: time.Now().UTC()})
	if os.MkdirAll(filepath.Dir(file), 0o755) == nil {
		os.WriteFile(file, append(b, '\n'), 0o644)
	}
}

// initialAccel decides the first boot's accelerator. tcg is taken as
// asked; kvm needs a KVM that creates a VM (sys.KVMCreateVM, a few
// milliseconds); auto tries KVM when it creates a VM and has not failed to
// start a kernel on this host since it booted.
func initialAccel(accel, qemu, probe string, log io.Writer) (string, error) {
	if accel == "tcg" {
		return "tcg", nil
	}
	err := sys.KVMCreateVM()
	switch {
	case accel == "kvm" && err != nil:
		return "", fmt.Errorf("--accel kvm: %w", err)
	case accel == "kvm":
		return "kvm", nil
	case err != nil:
		fmt.Fprintf(log, "kdelta: vm: no usable KVM (%v); using TCG (emulated: timings do not measure the hardware)\n", err)
		return "tcg", nil
	case kvmFailedBefore(probe, qemu):
		fmt.Fprintf(log, "kdelta: vm: KVM did not start a kernel on this host since it booted (remembered in %s; --accel kvm tries again); using TCG (emulated: timings do not measure the hardware)\n", probe)
		return "tcg", nil
	}
	return "kvm", nil
}
