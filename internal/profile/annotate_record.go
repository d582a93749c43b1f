package profile

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kdelta/kdelta/internal/result"
)

// Bounds of what a profile keeps for annotate.
const (
	defaultMaxAnnotated = 8
	maxAnnotatedLines   = 4000
	// annotateJobs is how many perf annotate run at once.
	annotateJobs = 3
)

// A symKey names a symbol in one object.
type symKey struct{ dso, sym string }

// offsetCounts are a symbol's samples by offset from its start.
type offsetCounts map[int64]int64

// sampleOffsets counts the samples of data by symbol and offset, from
// `perf script -G -F ip,sym,symoff,dso`: one line a sample,
// "ffffffff81409e30 __rcu_read_unlock+0x0 ([kernel.kallsyms])".
func sampleOffsets(perf, data string) (map[symKey]offsetCounts, error) {
	// -G: a sample's call stack would count every caller's frame too.
	out, err := perfOutput(perf, "script", "-i", data, "-G", "-F", "ip,sym,symoff,dso")
	if err != nil {
		return nil, err
	}
	return parseOffsets(out), nil
}

func parseOffsets(out []byte) map[symKey]offsetCounts {
	counts := map[symKey]offsetCounts{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		i := strings.LastIndex(l, " (")
		if i < 0 || !strings.HasSuffix(l, ")") {
			continue
		}
		dso := l[i+2 : len(l)-1]
		_, symoff, ok := strings.Cut(strings.TrimSpace(l[:i]), " ")
		if !ok {
			continue
		}
		j := strings.LastIndex(symoff, "+0x")
		if j <= 0 {
			continue
		}
		off, err := strconv.ParseInt(symoff[j+3:], 16, 64)
		if err != nil {
			continue
		}
		k := symKey{dso: dso, sym: strings.TrimSpace(symoff[:j])}
		if counts[k] == nil {
			counts[k] = offsetCounts{}
		}
		counts[k][off]++
	}
	return counts
}

func (c offsetCounts) total() int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

// annotateHot annotates the hottest symbols of the perf.data p was read
// from (Options.MaxAnnotated of them) and keeps the annotations in p.
func annotateHot(perf, data string, p *result.Profile, o Options) {
	counts, err := sampleOffsets(perf, data)
	if err != nil {
		p.Warnings = append(p.Warnings, "annotate: "+err.Error())
		return
	}
	keys := make([]symKey, 0, len(counts))
	for k := range counts {
		if k.sym != "[unknown]" {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		ci, cj := counts[keys[i]].total(), counts[keys[j]].total()
		if ci != cj {
			return ci > cj
		}
		return keys[i].sym < keys[j].sym
	})
	max := o.MaxAnnotated
	if max <= 0 {
		max = defaultMaxAnnotated
	}
	if len(keys) > max {
		keys = keys[:max]
	}
	// Each perf annotate reads the whole perf.data: one object's first
	// symbol is annotated alone, so that an object perf cannot
	// disassemble (a kernel without vmlinux) fails once, and the other
	// symbols run annotateJobs at a time.
	a := annotator{perf: perf, data: data, o: o, noText: map[string]string{}}
	out := make([]*result.ProfileAnnotation, len(keys))
	first := map[string]bool{}
	for i, k := range keys {
		if !first[k.dso] {
			first[k.dso] = true
			out[i] = a.symbol(k, counts[k])
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, annotateJobs)
	for i, k := range keys {
		if out[i] != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		why := a.noText[k.dso]
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = a.symbolWith(k, counts[k], why)
		}()
	}
	wg.Wait()
	for _, an := range out {
		p.Annotations = append(p.Annotations, *an)
	}
	p.Annotated = true
}

// An annotator runs perf annotate on one perf.data, remembering why an
// object cannot be disassembled once it has failed to be (a kernel
// without vmlinux fails the same way for every symbol, and each failure
// costs a read of the whole perf.data).
type annotator struct {
	perf, data string
	o          Options
	noText     map[string]string
}

// symbol annotates one symbol: perf annotate's instructions and source
// lines with their samples counted from perf script, or, when perf
// cannot disassemble it, its sampled offsets alone.
func (an *annotator) symbol(k symKey, c offsetCounts) *result.ProfileAnnotation {
	a := an.symbolWith(k, c, an.noText[k.dso])
	if a.NoText != "" {
		if an.noText == nil {
			an.noText = map[string]string{}
		}
		an.noText[k.dso] = a.NoText
	}
	return a
}

// symbolWith is symbol for an object that perf could not disassemble
// for why, or "" when it has not failed.
func (an *annotator) symbolWith(k symKey, c offsetCounts, why string) *result.ProfileAnnotation {
	a := &result.ProfileAnnotation{Symbol: k.sym, DSO: k.dso, Kernel: KernelDSO(k.dso), Samples: c.total()}
	if why == "" && strings.HasPrefix(k.sym, "0x") {
		why = "perf found no symbol table for " + k.dso
	}
	if why == "" {
		got, err := an.perfAnnotate(k)
		if err == nil {
			a.Source, a.Lines = got.Source, got.Lines
			for i := range a.Lines {
				if l := &a.Lines[i]; !l.Source && l.Offset >= 0 {
					l.Samples = c[l.Offset]
				}
			}
			bound(a)
			return a
		}
		why = err.Error()
	}
	a.Source, a.NoText = "perf script", why
	offs := make([]int64, 0, len(c))
	for off := range c {
		offs = append(offs, off)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	for _, off := range offs {
		a.Lines = append(a.Lines, result.AnnotatedLine{Offset: off, Samples: c[off], Percent: 100 * float64(c[off]) / float64(a.Samples)})
	}
	bound(a)
	return a
}

// perfAnnotate runs perf annotate --stdio on one symbol and parses it.
func (an *annotator) perfAnnotate(k symKey) (*result.ProfileAnnotation, error) {
	args := []string{"annotate", "--stdio", "--stdio-color", "never", "-i", an.data, "--dsos", k.dso}
	if an.o.Vmlinux != "" {
		args = append(args, "--vmlinux", an.o.Vmlinux)
	}
	out, stderr, err := perfExec(an.perf, append(args, k.sym)...)
	as, perr := ParseAnnotate("perf annotate "+k.sym, out)
	if err != nil || perr != nil {
		// perf annotate may exit 0 having printed only its complaint.
		return nil, fmt.Errorf("perf annotate: %s", perfReason(stderr, err))
	}
	for _, a := range as {
		if a.Symbol == k.sym {
			return a, nil
		}
	}
	return as[0], nil
}

// perfReason is perf's own explanation of a failure in one line ("No
// vmlinux file with build id … was found in the path."), without its
// "Error:" line and the advice after the first blank line.
func perfReason(stderr []byte, err error) string {
	var keep []string
	for _, l := range strings.Split(string(stderr), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if len(keep) > 0 {
				break
			}
			continue
		}
		if l != "Error:" && !strings.HasPrefix(l, "Couldn't annotate") {
			keep = append(keep, l)
		}
	}
	switch {
	case len(keep) > 0:
		return strings.Join(keep, " ")
	case err != nil:
		return err.Error()
	}
	return "no instructions printed"
}

// bound cuts an annotation to maxAnnotatedLines; Cut counts the lines
// left out.
func bound(a *result.ProfileAnnotation) {
	if len(a.Lines) > maxAnnotatedLines {
		a.Cut = len(a.Lines) - maxAnnotatedLines
		a.Lines = a.Lines[:maxAnnotatedLines]
	}
}
