package cli_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/cli"
)

// TestHTMLFormats writes every --format html report with -o: one page
// each, nothing on stdout; an -o that cannot be written is one line and
// exit 2, and leaves nothing behind.
func TestHTMLFormats(t *testing.T) {
	craftedStore(t, ownStore(t))
	seeds := filepath.Join("..", "result", "testdata", "import")
	prof := filepath.Join("..", "profile", "testdata")
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"compare", []string{"compare", filepath.Join(seeds, "seed-002-baseline.md"), filepath.Join(seeds, "seed-002-with-fix.md"), "--format", "html"}, "warning: A: 2 outliers"},
		{"history", []string{"history", "--by", "kernel", "--workload", "pipe:mode=process", "--format", "html"}, "at 6.16: "},
		{"show", []string{"show", "20260727T090000-000000000000", "--format", "html"}, "pipe  mode=process"},
		{"profile", []string{"profile", "diff", filepath.Join(prof, "seed004-before.txt"), filepath.Join(prof, "seed004-after.txt"), "--format", "html"}, `class="bar"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".html")
			code, stdout, stderr := kd(t, append(tc.args, "-o", out)...)
			page, err := os.ReadFile(out)
			if code != 0 || stdout != "" || err != nil {
				t.Fatalf("exit %d, stdout %q, stderr %q, %v", code, stdout, stderr, err)
			}
			if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), tc.want) || !strings.Contains(string(page), `id="kdelta-data"`) {
				t.Errorf("%s is not the page (want %q in it)", out, tc.want)
			}
			bad := filepath.Join(dir, "missing", tc.name+".html")
			code, _, stderr = kd(t, append(tc.args, "-o", bad)...)
			if code != 2 || !strings.HasSuffix(stderr, "\nkdelta: -o "+bad+": no such file or directory\n") && stderr != "kdelta: -o "+bad+": no such file or directory\n" {
				t.Errorf("-o %s: exit %d, stderr %q", bad, code, stderr)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("%d files in %s, want the 4 pages and no temporary one", len(entries), dir)
	}
}

// TestServeCLI starts kdelta serve on a free loopback port over a store,
// reads the API, is refused a write, and stops on cancel; a remote address
// without --allow-remote is a usage error.
func TestServeCLI(t *testing.T) {
	path := ownStore(t)
	craftedStore(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--store", path}, io.Discard, pw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("serve said nothing: %v", err)
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`^kdelta: serving (.+) read-only at (http://127\.0\.0\.1:\d+/) to users of this machine`).FindStringSubmatch(line)
	if m == nil || m[1] != path {
		t.Fatalf("serve's line %q", line)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(m[2] + "api/sets?label=kernel%3D6.15")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Count(string(body), `"id"`) != 2 {
		t.Errorf("/api/sets?label=kernel=6.15: %s %s", resp.Status, body)
	}
	resp, err = client.Post(m[2]+"api/sets", "application/json", strings.NewReader("[]"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s", resp.Status)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve stopped with exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on cancel")
	}

	code, _, stderr := kd(t, "serve", "--addr", "0.0.0.0:0", "--store", path)
	if code != 2 || !strings.Contains(stderr, "not a loopback address") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("serve on 0.0.0.0 without --allow-remote: exit %d, %q", code, stderr)
	}
}

// TestPlotFlag: compare --plot and show --plot append the text strip
// plots after the text output.
func TestPlotFlag(t *testing.T) {
	craftedStore(t, ownStore(t))
	seeds := filepath.Join("..", "result", "testdata", "import")
	code, stdout, stderr := kd(t, "compare", filepath.Join(seeds, "seed-002-baseline.md"), filepath.Join(seeds, "seed-002-with-fix.md"), "--plot")
	text, plots, ok := strings.Cut(stdout, "\nruns per column:")
	if code != 0 || !ok || !strings.Contains(text, "B vs A: -37.8%") || strings.Count(plots, "\n  A  [") != 3 || strings.Count(plots, "\n  B  [") != 3 {
		t.Errorf("compare --plot: exit %d, stderr %q, stdout\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = kd(t, "show", "20260727T090000-000000000000", "--plot")
	if code != 0 || !strings.Contains(stdout, "\npipe  mode=process  latency (us)\n") || strings.Count(stdout, "\n  runs  [") != 1 {
		t.Errorf("show --plot: exit %d, stderr %q, stdout\n%s", code, stderr, stdout)
	}
}
