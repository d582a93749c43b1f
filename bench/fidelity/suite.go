package main

import "strconv"

// suite lists the workload pairs. Placement: the single-task and
// ping-pong workloads run on one CPU (the reference's usual taskset -c N),
// the many-task ones on all CPUs of this two-core machine.
func suite() []pair {
	const (
		sysLoops  = 10000000
		pipeLoops = 200000
	)
	usecsPerOp := grab(`([0-9.]+) usecs/op`)
	total := grab(`Total time: ([0-9.]+) \[sec\]`)
	ps := []pair{
		{
			name: "syscall getppid", cpus: "1", tool: "perf", target: 0.05, ops: sysLoops,
			ref:  []string{"perf", "bench", "syscall", "basic", "-l", strconv.Itoa(sysLoops)},
			spec: "syscall:syscall=getppid,calls=" + strconv.Itoa(sysLoops),
			figs: []figure{{name: "ns/call", better: "lower", ref: scaled(usecsPerOp, 1000), kdelta: "ns/call"}},
		},
		{
			name: "pipe process legacy", cpus: "1", tool: "perf", target: 0.05, ops: pipeLoops,
			ref:  []string{"perf", "bench", "sched", "pipe", "-l", strconv.Itoa(pipeLoops)},
			spec: "pipe:mode=process,order=legacy,loops=" + strconv.Itoa(pipeLoops),
			figs: []figure{{name: "usecs/op", better: "lower", ref: usecsPerOp, kdelta: "usecs/op"}},
		},
		{
			name: "pipe thread legacy", cpus: "1", tool: "perf", target: 0.05, ops: pipeLoops,
			ref:  []string{"perf", "bench", "sched", "pipe", "-T", "-l", strconv.Itoa(pipeLoops)},
			spec: "pipe:mode=thread,order=legacy,loops=" + strconv.Itoa(pipeLoops),
			figs: []figure{{name: "usecs/op", better: "lower", ref: usecsPerOp, kdelta: "usecs/op"}},
		},
	}
	// messaging: perf bench sched messaging in its four shapes.
	const groups, loops = 10, 100
	msgs := float64(groups * 20 * 20 * loops)
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
		ref := append([]string{"perf", "bench", "sched", "messaging", "-g", strconv.Itoa(groups), "-l", strconv.Itoa(loops)}, m.flags...)
		ps = append(ps, pair{
			name: m.name, cpus: "0-1", tool: "perf", target: 0.10, ops: msgs, ref: ref,
			spec: "messaging:groups=" + strconv.Itoa(groups) + ",loops=" + strconv.Itoa(loops) + "," + m.spec,
			figs: []figure{{name: "time s", better: "lower", ref: total, kdelta: "time"}},
		})
	}
	const killOps = 20000
	ps = append(ps, pair{
		name: "kill stress-ng", cpus: "0-1", tool: "stress-ng", target: 0.10, ops: killOps,
		ref:  []string{"stress-ng", "--kill", "1", "--kill-ops", strconv.Itoa(killOps), "--metrics"},
		spec: "kill:instances=1,ops=" + strconv.Itoa(killOps),
		figs: []figure{
			{name: "bogo-ops/s", better: "higher", ref: grab(`kill\s+\d+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+([0-9.]+)`), kdelta: "bogo-ops/s"},
			{name: "kill-calls/s", better: "higher", ref: grab(`kill\s+([0-9.]+) kill calls per sec`), kdelta: "kill-calls/s"},
		},
	})
	return ps
}
