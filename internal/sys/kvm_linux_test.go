package sys

import (
	"runtime"
	"strings"
	"testing"
)

// TestKVMIO checks the request numbers against <linux/kvm.h> as the C
// compiler expands it: KVM_GET_API_VERSION and KVM_CREATE_VM.
func TestKVMIO(t *testing.T) {
	want := [2]uint{0xAE00, 0xAE01}
	if strings.HasPrefix(runtime.GOARCH, "ppc64") {
		want = [2]uint{0x2000AE00, 0x2000AE01}
	}
	if got := [2]uint{kvmIO(0), kvmIO(1)}; got != want {
		t.Errorf("KVM_GET_API_VERSION, KVM_CREATE_VM = %#x, want %#x", got, want)
	}
}

// TestKVMCreateVM: where KVM works the probe passes; where it does not,
// its error names /dev/kvm and what failed.
func TestKVMCreateVM(t *testing.T) {
	err := KVMCreateVM()
	t.Logf("KVMCreateVM: %v", err)
	if err != nil && !strings.HasPrefix(err.Error(), "open /dev/kvm") && !strings.HasPrefix(err.Error(), "/dev/kvm: ") {
		t.Errorf("error %q does not name /dev/kvm", err)
	}
}
