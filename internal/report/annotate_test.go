package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
)

func parsedAnnotation(t *testing.T, file string) *profile.Annotation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "profile", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	as, err := profile.ParseAnnotate(file, b)
	if err != nil {
		t.Fatal(err)
	}
	return &profile.Annotation{Ref: file, Benchmark: file, Profiles: 1, ProfileAnnotation: *as[0]}
}

// TestWriteAnnotation: perf annotate's TUI text from the seed 003 mail,
// a kernel symbol kept with offsets only, and the diff of one function
// from two builds, each within a mail's 72 columns.
func TestWriteAnnotation(t *testing.T) {
	kernel := &profile.Annotation{Ref: "A", Benchmark: "syscall:calls=2000000", Event: "cpu-clock", Profiles: 2,
		ProfileAnnotation: result.ProfileAnnotation{Symbol: "do_syscall_64", DSO: "[kernel.kallsyms]", Kernel: true, Samples: 288,
			Source: "perf script", NoText: "perf annotate: No vmlinux file with build id 4a5a9b0affb66c437abcd455d2738af879985fa9 was found in the path.",
			Lines: []result.AnnotatedLine{{Offset: 0x46, Samples: 283, Percent: 98.26}, {Offset: 0x5e, Samples: 1, Percent: 0.35}, {Offset: 0x6c, Samples: 4, Percent: 1.39}}}}
	a, b := parsedAnnotation(t, "annotate-build1.txt"), parsedAnnotation(t, "annotate-build2.txt")
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"annotate/seed003.golden", func(w *bytes.Buffer) error {
			return WriteAnnotation(w, parsedAnnotation(t, "annotate-tui-seed003.txt"))
		}},
		{"annotate/kernel-offsets.golden", func(w *bytes.Buffer) error { return WriteAnnotation(w, kernel) }},
		{"annotate/diff.golden", func(w *bytes.Buffer) error {
			return WriteAnnotationDiff(w, a, b, profile.DiffAnnotations(a, b), 12)
		}},
	} {
		var w bytes.Buffer
		if err := tc.write(&w); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, tc.name, w.Bytes())
		for _, l := range strings.Split(w.String(), "\n") {
			if utf8.RuneCountInString(l) > 72 {
				t.Errorf("%s: %d columns: %q", tc.name, utf8.RuneCountInString(l), l)
			}
		}
	}
}
