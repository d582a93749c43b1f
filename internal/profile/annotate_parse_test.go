package profile

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// seedMail reads the seed 003 mail, which quotes perf annotate of
// mm_cid_get() and of sched_mm_cid_migrate_to() from the TUI.
func seedMail(t *testing.T) []byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "context", "003_*.txt"))
	if len(files) != 1 {
		t.Fatalf("the seed 003 mail: %d files match ../shared/context/003_*.txt", len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseAnnotateSeed003 checks the parse of the mail against the
// mail's own lines: every line with a bar becomes one annotated line, in
// order; a figure before the bar is that instruction's share; a line with
// an arrow is a call or jump; the lines the mail shows as C are source.
func TestParseAnnotateSeed003(t *testing.T) {
	mail := seedMail(t)
	as, err := ParseAnnotate("seed 003", mail)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 2 {
		t.Fatalf("%d annotations, want the mail's 2 (mm_cid_get, sched_mm_cid_migrate_to)", len(as))
	}
	var got []result.AnnotatedLine
	for _, a := range as {
		got = append(got, a.Lines...)
	}
	var want []string
	for _, l := range strings.Split(string(mail), "\n") {
		if strings.Contains(l, "│") && strings.TrimSpace(strings.SplitN(l, "│", 2)[1]) != "" {
			want = append(want, l)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines parsed, the mail has %d lines with text behind the bar", len(got), len(want))
	}
	var top result.AnnotatedLine
	for i, l := range want {
		pct, rest, _ := strings.Cut(l, "│")
		g := got[i]
		text := strings.Join(strings.Fields(rest), " ")
		if !strings.HasSuffix(text, g.Text) || g.Text == "" {
			t.Errorf("line %d: parsed text %q is not the end of the mail's %q", i, g.Text, text)
		}
		if f := strings.TrimSpace(pct); f != "" {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			if g.Source || g.Percent != v {
				t.Errorf("line %d %q: parsed %+v, want an instruction with %v%%", i, text, g, v)
			}
			if v > top.Percent {
				top = g
			}
		}
		arrow := strings.ContainsAny(rest, jumpArrows)
		if arrow != (g.Jump != "") || (arrow && g.Source) {
			t.Errorf("line %d %q: jump %q, source %v", i, text, g.Jump, g.Source)
		}
		// C statements end in ";" and function names in "():"; the
		// mail's instructions do neither.
		csrc := strings.HasSuffix(text, ";") || strings.HasSuffix(text, "():")
		if csrc != g.Source {
			t.Errorf("line %d %q: source %v, want %v", i, text, g.Source, csrc)
		}
		// An instruction with a label ("236:   xchg") keeps its offset.
		if lab, _, ok := strings.Cut(strings.TrimSpace(rest), ":"); ok && !g.Source {
			if off, err := strconv.ParseInt(lab, 16, 64); err == nil && off != g.Offset {
				t.Errorf("line %d %q: offset %d, want the label %q", i, text, g.Offset, lab)
			}
		}
	}
	if top.Text != "mov 0x60(%r14),%r12" {
		t.Errorf("the hottest instruction parsed as %q", top.Text)
	}
	t.Logf("%d annotations, %d lines; hottest %.2f%% %s", len(as), len(got), top.Percent, top.Text)
}

// TestParseAnnotateStdio reads perf annotate --stdio of a Go function
// captured here: the objdump header names the symbol, offsets count from
// its start and the shares add up to perf's 100%.
func TestParseAnnotateStdio(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "annotate-go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	as, err := ParseAnnotate("annotate-go.txt", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 {
		t.Fatalf("%d annotations", len(as))
	}
	a := as[0]
	var sum float64
	var insns int
	for _, l := range a.Lines {
		if !l.Source {
			sum += l.Percent
			insns++
		}
	}
	if math.Abs(sum-100) > 1 || a.Symbol != "golang.org/x/sys/unix.RawSyscallNoError.abi0" || a.DSO != "kdelta" {
		t.Errorf("%s in %s: shares sum to %.2f%%", a.Symbol, a.DSO, sum)
	}
	if insns != strings.Count(string(b), ": mov")+strings.Count(string(b), ": syscall")+strings.Count(string(b), ": ret") {
		t.Errorf("%d instructions", insns)
	}
	if a.Lines[len(a.Lines)-1].Text != "ret" || a.Lines[len(a.Lines)-1].Offset != 0x5fe5b5-0x5fe580 {
		t.Errorf("last line %+v", a.Lines[len(a.Lines)-1])
	}
}

// FuzzParseAnnotate: any text parses or is refused without a panic, and
// what parses is well formed: source lines carry no share, shares are
// finite, every annotation has lines.
func FuzzParseAnnotate(f *testing.F) {
	addSeeds(f, "annotate-*.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		as, err := ParseAnnotate("fuzz", data)
		if err != nil {
			return
		}
		for _, a := range as {
			if len(a.Lines) == 0 {
				t.Fatal("an annotation without lines")
			}
			for _, l := range a.Lines {
				if l.Source && (l.Percent != 0 || l.Offset != -1 || l.Jump != "") {
					t.Fatalf("source line %+v", l)
				}
				if math.IsNaN(l.Percent) || math.IsInf(l.Percent, 0) {
					t.Fatalf("share %v", l.Percent)
				}
			}
		}
	})
}

// kernelAddresses moves the addresses of a user binary's annotate or
// objdump text up into a kernel's range, above 2^63.
func kernelAddresses(b []byte) []byte {
	s := regexp.MustCompile(`\b0000000000([0-9a-f]{6}) <`).ReplaceAllString(string(b), "ffffffff81$1 <")
	return []byte(regexp.MustCompile(`(?m)^(\s*(?:[\d.]+\s*:)?\s*)([0-9a-f]{6}):`).ReplaceAllString(s, "${1}ffffffff81$2:"))
}

// TestParseKernelAddresses: text with a kernel's addresses gives the
// offsets that the same text at a user binary's addresses gives, in
// perf annotate --stdio and in objdump's output.
func TestParseKernelAddresses(t *testing.T) {
	for _, tc := range []struct {
		file  string
		parse func([]byte) []result.AnnotatedLine
	}{
		{"annotate-go.txt", func(b []byte) []result.AnnotatedLine {
			as, err := ParseAnnotate("annotate-go.txt", b)
			if err != nil {
				t.Fatal(err)
			}
			return as[0].Lines
		}},
		{"objdump-go.txt", func(b []byte) []result.AnnotatedLine {
			return parseObjdump(b, "golang.org/x/sys/unix.RawSyscallNoError.abi0")
		}},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		k := kernelAddresses(b)
		if !strings.Contains(string(k), "ffffffff815fe5a9:") {
			t.Fatalf("%s: addresses not moved:\n%s", tc.file, k)
		}
		user, kernel := tc.parse(b), tc.parse(k)
		insns := 0
		for i := range user {
			if !user[i].Source {
				insns++
			}
		}
		if len(user) != len(kernel) || insns == 0 {
			t.Fatalf("%s: %d lines, %d at kernel addresses, %d instructions", tc.file, len(user), len(kernel), insns)
		}
		for i := range user {
			if user[i] != kernel[i] || (!user[i].Source && user[i].Offset < 0) {
				t.Errorf("%s line %d: %+v, at kernel addresses %+v", tc.file, i, user[i], kernel[i])
			}
		}
	}
}
