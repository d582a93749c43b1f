package main

import (
	"strconv"
	"strings"
)

// where names a placement: one CPU, or "CPUs 0-1".
func where(cpus string) string {
	if strings.ContainsAny(cpus, ",-") {
		return "CPUs " + cpus
	}
	return "CPU " + cpus
}

// cbuilt holds the paths of the C references fidelity.sh builds with gcc.
type cbuilt struct {
	pingpong                string // pingpong.c
	msgcStatic, msgcDynamic string // msgc.c, linked statically and dynamically
}

// suite lists the workload pairs, each with a short twin of a tenth of
// the operations for per-op counts. Placement: the single-task and
// ping-pong workloads run on one CPU (the reference's usual taskset -c N)
// or, split, each task on a CPU of its own,
// the many-task ones on all CPUs of this two-core machine.
func suite(kd string, c cbuilt) []pair {
	usecsPerOp := grab(`([0-9.]+) usecs/op`)
	total := grab(`Total time: ([0-9.]+) \[sec\]`)
	syscall := func(n int) pair {
		return pair{
			name: "syscall getppid", cpus: "1", tool: "perf", target: 0.05, ops: float64(n),
			ref:  []string{"perf", "bench", "syscall", "basic", "-l", strconv.Itoa(n)},
			spec: "syscall:syscall=getppid,calls=" + strconv.Itoa(n),
			figs: []figure{{name: "ns/call", better: "lower", ref: scaled(usecsPerOp, 1000), kdelta: "ns/call"}},
		}
	}
	pipe := func(mode, cpus string, n int) pair {
		ref := []string{"perf", "bench", "sched", "pipe", "-l", strconv.Itoa(n)}
		if mode == "thread" {
			ref = append(ref, "-T")
		}
		return pair{
			// order=auto: the loop of the perf it runs beside.
			name: "pipe " + mode + " on " + where(cpus), cpus: cpus, tool: "perf", target: 0.05, ops: float64(n), ref: ref,
			spec: "pipe:mode=" + mode + ",order=auto,loops=" + strconv.Itoa(n),
			figs: []figure{{name: "usecs/op", better: "lower", ref: usecsPerOp, kdelta: "usecs/op"}},
		}
	}
	pipeRaw := func(n int) pair {
		p := pipe("thread", "1", n)
		p.name += " (C with raw calls)"
		p.tool = c.pingpong
		p.ref = []string{c.pingpong, strconv.Itoa(n)}
		p.spec = "pipe:mode=thread,order=legacy,cancel=none,loops=" + strconv.Itoa(n)
		return p
	}
	// Split: worker 0 on CPU 0 and worker 1 on CPU 1, each pinned. perf
	// bench sched pipe cannot place its tasks apart, so the reference is
	// pingpong.c, which can (raw calls, the order before perf 6.15).
	split := func(mode string, n int) pair {
		p := pipeRaw(n)
		p.name = "pipe " + mode + " split (C with raw calls)"
		p.cpus, p.split = "0-1", true
		p.ref = []string{c.pingpong, strconv.Itoa(n), "0", "1"}
		if mode == "process" {
			p.ref = append([]string{c.pingpong, "-p"}, p.ref[1:]...)
		}
		p.spec = "pipe:mode=" + mode + ",order=legacy,cancel=none,cpus=split,loops=" + strconv.Itoa(n)
		return p
	}
	messaging := func(name string, flags []string, spec string, loops int) pair {
		const groups = 10
		ref := append([]string{"perf", "bench", "sched", "messaging", "-g", strconv.Itoa(groups), "-l", strconv.Itoa(loops)}, flags...)
		return pair{
			name: name, cpus: "0-1", tool: "perf", target: 0.10, ops: float64(groups * 20 * 20 * loops), ref: ref,
			spec: "messaging:groups=" + strconv.Itoa(groups) + ",loops=" + strconv.Itoa(loops) + "," + spec,
			figs: []figure{{name: "time s", better: "lower", ref: total, kdelta: "time"}},
		}
	}
	kill := func(n int) pair {
		// pidmax=auto: stress-ng before 0.17.02 (Debian 12's 0.15) reads
		// pid_max on every bogo-op, later ones do not.
		return pair{
			name: "kill stress-ng", cpus: "0-1", tool: "stress-ng", target: 0.10, ops: float64(n),
			ref:  []string{"stress-ng", "--kill", "1", "--kill-ops", strconv.Itoa(n), "--metrics"},
			spec: "kill:instances=1,pidmax=auto,ops=" + strconv.Itoa(n),
			figs: []figure{
				{name: "bogo-ops/s", better: "higher", ref: grab(`kill\s+\d+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+([0-9.]+)`), kdelta: "bogo-ops/s"},
				{name: "kill-calls/s", better: "higher", ref: grab(`kill\s+([0-9.]+) kill calls per sec`), kdelta: "kill-calls/s"},
			},
		}
	}
	with := func(long, short pair) pair {
		long.short = &short
		return long
	}
	ps := []pair{
		with(syscall(10000000), syscall(1000000)),
		with(pipe("process", "1", 200000), pipe("process", "1", 20000)),
		with(pipe("thread", "1", 200000), pipe("thread", "1", 20000)),
		// The same against pingpong.c, perf's thread loop with raw calls
		// (no glibc cancellation wrappers), where fidelity.sh built it, and
		// kdelta with bare calls too (cancel=none).
		with(pipeRaw(200000), pipeRaw(20000)),
		// Unpinned, as both tools run by default: every CPU of this
		// two-core machine. A round trip is ten times longer here and
		// swings between sharing a CPU (3 us) and one each (60 us): at
		// 50,000 round trips a run's CV was 13-25% on both sides, at
		// 200,000 (a fifth of perf's default) 4-5%.
		with(pipe("process", "0-1", 200000), pipe("process", "0-1", 20000)),
		with(pipe("thread", "0-1", 200000), pipe("thread", "0-1", 20000)),
		// Each task on a CPU of its own: a round trip is two cross-CPU
		// wake-ups, some 25 us here, so fewer of them.
		with(split("process", 50000), split("process", 5000)),
		with(split("thread", 50000), split("thread", 5000)),
	}
	for _, m := range []struct {
		name  string
		flags []string
		spec  string
	}{
		{"messaging process socket", nil, "mode=process,ipc=socket"},
		{"messaging thread socket", []string{"-t"}, "mode=thread,ipc=socket"},
		{"messaging process pipe", []string{"-p"}, "mode=process,ipc=pipe"},
		{"messaging thread pipe", []string{"-t", "-p"}, "mode=thread,ipc=pipe"},
	} {
		ps = append(ps, with(messaging(m.name, m.flags, m.spec, 100), messaging(m.name, m.flags, m.spec, 10)))
	}
	// rt-tests hackbench: the same algorithm from a small C binary, whose
	// forked workers tear down a small address space at exit (inside the
	// timed window), as kdelta's do; perf's workers are copies of perf.
	hackbench := func(ipc string, loops int) pair {
		p := messaging("messaging process "+ipc+" (hackbench)", nil, "mode=process,ipc="+ipc, loops)
		p.tool = "hackbench"
		p.ref = []string{"hackbench", "-g", "10", "-l", strconv.Itoa(loops)}
		if ipc == "pipe" {
			p.ref = append(p.ref, "-p")
		}
		p.figs = []figure{{name: "time s", better: "lower", ref: grab(`Time: ([0-9.]+)`), kdelta: "time"}}
		return p
	}
	// The same hackbench started by kdelta's command workload: a child
	// inherits its parent's scheduling history (wakee_flips, which the
	// scheduler's wake_wide() weighs at each wake-up), and hackbench from a
	// shell starts with a shell's, kdelta's forker with a Go process's.
	// This pair compares the two with the launcher the same.
	viaKdelta := func(ipc string, loops int) pair {
		p := hackbench(ipc, loops)
		p.name = "messaging process " + ipc + " (hackbench run by kdelta)"
		p.ref = []string{kd, "run", "command:cmd='" + strings.Join(p.ref, " ") + "',parse=hackbench",
			"-r", "1", "--warmup", "0", "--no-store", "--counters", "none", "--monitor", "none"}
		p.figs[0].ref = grab(`(?m)^\s+time\s+1\s+([0-9.]+)`)
		return p
	}
	// msgc.c: the same algorithm again, with nothing of hackbench's own,
	// linked statically (a worker's image is then one small executable,
	// as a lean kdelta worker's is) and against the shared C library
	// (as hackbench is): what the two differ by is the process image's
	// cost inside the window, not the kernel's messaging.
	msgc := func(ipc, link, bin string, loops int) pair {
		p := hackbench(ipc, loops)
		p.name = "messaging process " + ipc + " (" + link + " C)"
		p.tool = bin
		p.ref[0] = bin // msgc takes hackbench's -g, -l and -p
		return p
	}
	for _, ipc := range []string{"socket", "pipe"} {
		ps = append(ps, with(hackbench(ipc, 100), hackbench(ipc, 10)))
		ps = append(ps, with(viaKdelta(ipc, 100), viaKdelta(ipc, 10)))
		ps = append(ps, with(msgc(ipc, "static", c.msgcStatic, 100), msgc(ipc, "static", c.msgcStatic, 10)))
		ps = append(ps, with(msgc(ipc, "dynamic", c.msgcDynamic, 100), msgc(ipc, "dynamic", c.msgcDynamic, 10)))
	}
	ps = append(ps, with(kill(20000), kill(2000)))
	for _, mode := range []string{"process", "thread"} {
		ps = append(ps, with(ctxswPipe(mode, 500000), ctxswPipe(mode, 50000)))
	}
	return ps
}

// ctxswPipe pairs context_switch's pipe test with perf bench sched pipe
// on one CPU (taskset -c 1), processes or threads (-T) on both sides. The
// selftest's loop is perf's before 6.15 (one side reads first): a round
// trip is two handoffs, so perf's usecs/op is 2 × ns/switch. perf 6.15
// made both sides write first, another loop; with such a perf the ratio
// compares different work (see WORKLOADS.md §2). The FP touch is off, as
// perf makes none (the selftest's --no-fp).
func ctxswPipe(mode string, roundTrips int) pair {
	ref := []string{"perf", "bench", "sched", "pipe", "-l", strconv.Itoa(roundTrips)}
	if mode == "thread" {
		ref = append(ref, "-T")
	}
	return pair{
		name: "context_switch pipe " + mode, cpus: "1", tool: "perf", target: 0.05, ops: float64(roundTrips), ref: ref,
		spec: "context_switch:test=pipe,fp=false,mode=" + mode + ",switches=" + strconv.Itoa(2*roundTrips),
		figs: []figure{{name: "ns/switch", better: "lower", ref: scaled(grab(`([0-9.]+) usecs/op`), 1000.0/2), kdelta: "ns/switch"}},
	}
}
