package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReproduceRunKernels: kdelta reproduce --run --kernel K1 --kernel
// K2 boots each kernel in qemu as the variant of the mail it stands for
// (kdelta vm -f of the plan), and the reply draft sets each kernel's
// figures beside the mail's, with kdelta's verdict between the two
// kernels booted here. The test kernel is booted twice, once per
// variant: the verdict's words are the noise's, so only its shape is
// checked.
func TestReproduceRunKernels(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	kernel := vmKernel(t)
	bin := kdeltaBinary(t)
	dir := t.TempDir()
	reply := filepath.Join(dir, "reply.txt")
	cmd := exec.Command(bin, "reproduce", filepath.Join("testdata", "reproduce", "kernels.txt"), "--run", "--quick", "--kernel", kernel, "--kernel", kernel, "-o", reply)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kdelta reproduce --run --kernel: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(reply)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reply:\n%s", b)
	flat := strings.Join(strings.Fields(string(b)), " ")
	release := regexp.QuoteMeta(strings.TrimPrefix(filepath.Base(kernel), "vmlinuz-"))
	for _, re := range []string{
		`(?m)^Subject: Re: \[PATCH\] entry: take the short path for getppid$`,
		`(?m)^In-Reply-To: <k1@example\.org>$`,
		`(?m)^The first guest.s setup \(kdelta env\):$`,
		`(?m)^> ~# \./null_syscall$`,
		`(?m)^  Without the patch, ns/call: 2,547 ns \(one figure\)$`,
		`(?m)^  With the patch, ns/call: 2,311 ns \(one figure\)$`,
	} {
		if !regexp.MustCompile(re).Match(b) {
			t.Errorf("the reply lacks %s", re)
		}
	}
	for _, re := range []string{
		`Hi, I reran what Ann Kowalski <ann@example\.org> reports with kdelta reproduce on this machine, each kernel booted in qemu\.`,
		`here on kernel ` + release + ` \(A, the mail's "Without the patch"\) \(syscall [^)]*\), ns/call: n=3 mean [\d,.]+`,
		`here on kernel ` + release + ` \(B, the mail's "With the patch"\) \(syscall [^)]*\), ns/call: n=3 mean [\d,.]+`,
		`here, kernel ` + release + ` \(B, the mail's "With the patch"\) vs kernel ` + release + ` \(A, the mail's "Without the patch"\), ns/call: [a-z ]+, change [-+][\d.]+% \(n=3 vs 3, p=`,
	} {
		if !regexp.MustCompile(re).MatchString(flat) {
			t.Errorf("the reply lacks %s", re)
		}
	}
	for i, l := range strings.Split(string(b), "\n") {
		if n := len([]rune(l)); n > 72 {
			t.Errorf("reply line %d: %d columns", i+1, n)
		}
	}
}
