package counter

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Interrupts is /proc/interrupts.
type Interrupts struct {
	CPUs  []int // the CPU of each column, from the header
	Lines []IRQLine
}

// An IRQLine is one line of /proc/interrupts: a numbered IRQ ("24") or an
// architecture's named counter ("LOC", "RES", "IPI0", "ERR").
type IRQLine struct {
	Name string
	// Counts holds the per-CPU counts printed; ERR and MIS print one
	// system-wide count.
	Counts []uint64
	// Desc is the rest of the line (chip, hwirq, trigger, device or the
	// counter's description).
	Desc string
}

// Total is the line's count summed over CPUs.
func (l IRQLine) Total() uint64 {
	var s uint64
	for _, v := range l.Counts {
		s += v
	}
	return s
}

// ParseInterrupts parses the text of /proc/interrupts. Each line's counts
// are the leading numbers after "NAME:", at most one per CPU column; the
// description follows them.
func ParseInterrupts(b []byte) (*Interrupts, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("empty file")
	}
	cpus, err := parseCPUHeader(sc.Text())
	if err != nil {
		return nil, err
	}
	in := &Interrupts{CPUs: cpus}
	for n := 2; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, rest, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("line %d: no \"NAME:\" in %q", n, line)
		}
		f := strings.Fields(rest)
		l := IRQLine{Name: name}
		i := 0
		for ; i < len(f) && i < len(cpus); i++ {
			v, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				break
			}
			l.Counts = append(l.Counts, v)
		}
		if len(l.Counts) == 0 {
			return nil, fmt.Errorf("line %d (%s): no counts", n, name)
		}
		l.Desc = strings.Join(f[i:], " ")
		in.Lines = append(in.Lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return in, nil
}

// notDelivered are lines that count errors, not interrupts delivered to a
// CPU (x86 ERR and MIS, arm64 Err), left out of the grand total.
var notDelivered = map[string]bool{"ERR": true, "MIS": true, "Err": true}

// sample returns "irq.NAME" (summed over CPUs) for each line, "cpuN.irqs"
// (every line's count on CPU N), and "total": every interrupt delivered,
// which is the sum of all lines but the error counts (ERR, MIS, Err).
func (in *Interrupts) sample() map[string]float64 {
	m := map[string]float64{}
	var total float64
	for _, l := range in.Lines {
		t := float64(l.Total())
		m["irq."+l.Name] += t
		if notDelivered[l.Name] {
			continue
		}
		total += t
		if len(l.Counts) == len(in.CPUs) {
			for i, v := range l.Counts {
				m["cpu"+strconv.Itoa(in.CPUs[i])+".irqs"] += float64(v)
			}
		}
	}
	m["total"] = total
	return m
}
