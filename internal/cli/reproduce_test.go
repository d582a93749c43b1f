package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/testenv"
)

// seedMail returns the path of seed mail NNN in ../shared/context.
func seedMail(t *testing.T, n string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "context", n+"_*.txt"))
	if len(files) != 1 {
		t.Fatalf("seed %s: %d files match ../shared/context/%s_*.txt", n, len(files), n)
	}
	return files[0]
}

// TestReproduceRun is issue 38's acceptance 2: kdelta reproduce --run
// --quick reruns seed 004's context_switch (pinned under FIFO 98) and
// null_syscall, and seed 002's RCU latency, on this machine, and drafts
// the reply: headers from the mail, the quoted lines, our figures beside
// the mail's, 72 columns.
func TestReproduceRun(t *testing.T) {
	testenv.NeedRoot(t, "SCHED_FIFO (chrt -f 98 in seed 004) and rcu_expedited (seed 002)")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	cases := []struct {
		seed string
		want []*regexp.Regexp
	}{
		{"004", []*regexp.Regexp{
			regexp.MustCompile(`(?m)^In-Reply-To: <9b4dab64-6a6b-a599-4676-bf891473ada7@c-s\.fr>$`),
			regexp.MustCompile(`(?m)^Subject: Re: \[PATCH v13 00/10\] powerpc: Switch to$`),
			regexp.MustCompile(`(?m)^>>> ~# chrt -f 98 \./context_switch --no-altivec --no-vector --no-fp$`),
			regexp.MustCompile(`(?m)^  Without the serie, switches/s: n=5 mean 55,560`),
			regexp.MustCompile(`here \(context_switch [^)]*fp=false[^)]*\), switches/s: n=3 mean [\d,.]+`),
			regexp.MustCompile(`(?m)^>>> ~# \./null_syscall$`),
			regexp.MustCompile(`(?m)^  With the serie, ns/call: 3,480 ns \(one figure\)$`),
			regexp.MustCompile(`here \(syscall [^)]*\), ns/call: n=3 mean [\d,.]+`),
			regexp.MustCompile(`(?m)^>>> So 0,8% less context switches per second`),
		}},
		{"002", []*regexp.Regexp{
			regexp.MustCompile(`(?m)^Subject: Re: \(the mail gave no subject\)$`),
			regexp.MustCompile(`(?m)^>>> I benchmarked 100 synchronize_rcu\(\) calls with 32 CPUs, 10 runs each$`),
			regexp.MustCompile(`(?m)^  Baseline \(without fix\), mean: n=10 mean 9\.747`),
			regexp.MustCompile(`here \(rcu [^)]*\), mean: n=3 mean [\d,.]+ ± [\d,.]+ ms`),
			regexp.MustCompile(`(?m)^>>> - Mean latency: 9\.75 ms -> 6\.04 ms \(38% improvement\)$`),
		}},
	}
	for _, c := range cases {
		t.Run(c.seed, func(t *testing.T) {
			reply := filepath.Join(t.TempDir(), "reply.txt")
			var stdout, stderr bytes.Buffer
			args := []string{"reproduce", seedMail(t, c.seed), "--run", "--quick", "-o", reply}
			if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 0 {
				t.Fatalf("kdelta %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
			}
			b, err := os.ReadFile(reply)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("reply:\n%s", b)
			// Our figures' lines wrap at 72 columns: they are matched in
			// the text with its line breaks as spaces.
			flat := []byte(strings.Join(strings.Fields(string(b)), " "))
			for _, re := range c.want {
				if !re.Match(b) && !(strings.HasPrefix(re.String(), "here") && re.Match(flat)) {
					t.Errorf("the reply lacks %s", re)
				}
			}
			for i, l := range strings.Split(string(b), "\n") {
				if n := len([]rune(l)); n > 72 {
					t.Errorf("reply line %d: %d columns", i+1, n)
				}
			}
		})
	}
}

// TestReproduceExit: exit 2 only when nothing at all was found; a mail
// whose table cannot be read still reads, naming the line.
func TestReproduceExit(t *testing.T) {
	dir := t.TempDir()
	nothing := filepath.Join(dir, "nothing.txt")
	os.WriteFile(nothing, []byte("Subject: a question\n\nDoes anyone know why the build fails here? It worked yesterday.\n"), 0o644)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("Subject: x\n\nkernel    ops/s\n6.1       12,000   13,000   banana\n6.2       11,000   oops\n"), 0o644)
	var out, errb bytes.Buffer
	if code := cli.Main(context.Background(), []string{"reproduce", nothing}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "nothing found") {
		t.Errorf("a mail of prose: exit %d, stderr %q; want 2 and \"nothing found\"", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := cli.Main(context.Background(), []string{"reproduce", bad}, &out, &errb); code != 0 || !regexp.MustCompile(`(?m)^      line 3: .*expected.*"kernel    ops/s"`).MatchString(out.String()) {
		t.Errorf("a mail with an unreadable table: exit %d, output:\n%s", code, out.String())
	}
}
