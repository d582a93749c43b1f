package profile

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

var (
	objdumpInsnRE = regexp.MustCompile(`^\s*([0-9a-f]+):\t(.*)$`)
	// objdumpLocRE is objdump -l's "file:line" line, which perf's TUI
	// does not show either.
	objdumpLocRE = regexp.MustCompile(`^/?\S+:\d+(?: \(discriminator \d+\))?$`)
)

// disassemble returns sym's instructions in image and the source lines
// objdump interleaves (objdump -d -l -S --disassemble=SYM, binutils 2.32
// or later), offsets counted from the symbol's start.
func disassemble(image, sym string) ([]result.AnnotatedLine, error) {
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		return nil, fmt.Errorf("objdump not found: install binutils to disassemble %s", image)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(objdump, "-d", "-l", "-S", "--no-show-raw-insn", "--disassemble="+sym, image)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("objdump %s: %v: %s", image, err, lastLines(stderr.Bytes(), 1))
	}
	return parseObjdump(stdout.Bytes(), sym), nil
}

// parseObjdump reads the first block of sym in objdump -d text.
func parseObjdump(out []byte, sym string) []result.AnnotatedLine {
	var lines []result.AnnotatedLine
	var start uint64
	in := false
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if m := symStartRE.FindStringSubmatch(l); m != nil {
			if in {
				break
			}
			if m[2] == sym {
				in = true
				start, _ = strconv.ParseUint(m[1], 16, 64)
			}
			continue
		}
		if !in || l == "" {
			continue
		}
		if strings.HasPrefix(l, "Disassembly of section ") {
			break
		}
		if m := objdumpInsnRE.FindStringSubmatch(l); m != nil {
			addr, err := strconv.ParseUint(m[1], 16, 64)
			if err == nil {
				lines = append(lines, result.AnnotatedLine{Offset: int64(addr - start), Text: strings.Join(strings.Fields(m[2]), " ")})
				continue
			}
		}
		if t := strings.TrimSpace(l); !objdumpLocRE.MatchString(t) {
			lines = append(lines, result.AnnotatedLine{Source: true, Offset: -1, Text: t})
		}
	}
	return lines
}

// withText gives an annotation that has offsets and samples only the
// instructions and source lines of its symbol in image. Every sampled
// offset must start an instruction there: one that does not says image is
// not the binary the samples were taken in.
func withText(a *result.ProfileAnnotation, image string) error {
	lines, err := disassemble(image, a.Symbol)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: no symbol %s in it", image, a.Symbol)
	}
	samples := map[int64]int64{}
	for _, l := range a.Lines {
		if !l.Source {
			samples[l.Offset] += l.Samples
		}
	}
	starts := map[int64]bool{}
	for i := range lines {
		if l := &lines[i]; !l.Source {
			starts[l.Offset] = true
			l.Samples = samples[l.Offset]
			if a.Samples > 0 {
				l.Percent = 100 * float64(l.Samples) / float64(a.Samples)
			}
		}
	}
	for off := range samples {
		if !starts[off] {
			return fmt.Errorf("%s is not the binary %s was sampled in: its offset %#x starts no instruction there", image, a.Symbol, off)
		}
	}
	a.Lines, a.Source, a.NoText, a.Cut = lines, "objdump "+image, "", 0
	bound(a)
	return nil
}
