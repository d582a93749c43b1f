package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
)

// FuzzResultSet feeds mutated result sets through show, compare and
// explain, in process, as a user's file: whatever the file holds, each
// command either works or refuses it with a line, and none panics (which
// the last-resort recovery would turn into its "internal error" line).
func FuzzResultSet(f *testing.F) {
	for _, p := range []string{
		filepath.Join("..", "report", "testdata", "set.json"),
		filepath.Join("..", "report", "testdata", "compare", "a.json"),
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(bytes.Replace(data, []byte(`"runs": [`), []byte(`"runs": [null,`), 1))
		f.Add(bytes.Replace(data, []byte(`"benchmarks": [`), []byte(`"benchmarks": [null,`), 1))
		f.Add(bytes.ReplaceAll(data, []byte(`"values": {`), []byte(`"values": null, "x": {`)))
		f.Add(bytes.ReplaceAll(data, []byte(`"metrics": [`), []byte(`"metrics": [{}, `)))
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte(`{"schema":"kdelta/result/v1","benchmarks":[{"workload":"w","runs":[{"status":"ok","values":{"m":1}}]}]}`))
	f.Add([]byte(`{"schema":"kdelta/result/v1","benchmarks":[{"workload":"w","metrics":[{"name":"m"}],"summaries":{"m":{"n":0}}}]}`))
	base, err := os.ReadFile(filepath.Join("..", "report", "testdata", "compare", "b.json"))
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, base, 0o644); err != nil {
		f.Fatal(err)
	}
	// No store: the commands look for one (session noise) and find none.
	f.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	f.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bad := filepath.Join(t.TempDir(), "fuzzed.json")
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"show", bad},
			{"show", "--runs", bad},
			{"compare", good, bad},
			{"compare", bad, good, "--fail-on", "regression"},
			{"explain", good, bad},
			{"explain", bad, good},
		} {
			var stdout, stderr bytes.Buffer
			code := cli.Run(context.Background(), cli.Process{Args: args, Stdout: &stdout, Stderr: &stderr, GOOS: "linux"})
			if strings.Contains(stderr.String(), "internal error") {
				t.Fatalf("kdelta %s: a panic reached the last resort (exit %d):\n%s", strings.Join(args, " "), code, stderr.String())
			}
		}
	})
}
