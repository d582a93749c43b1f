package workload

// A Pinner is a Workload whose parameters may pin its tasks to CPUs
// named by number (pipe's and ctxsw's cpus=A,B). PinnedCPUs returns the
// CPUs v names, none when v leaves the placement to the machine. The
// runner refuses, before any run, a pin to a CPU the children may not
// use (runner.CheckPins), which would otherwise fail in every run.
type Pinner interface {
	PinnedCPUs(v Values) []int
}

func (pipePingPong) PinnedCPUs(v Values) []int {
	p, err := parsePlacement(v.String("cpus"))
	if err != nil || p.kind != "explicit" {
		return nil
	}
	return p.cpu[:]
}

func (contextSwitch) PinnedCPUs(v Values) []int {
	c, err := parseCtxswCPUs(v.String("cpus"))
	if err != nil || c.auto {
		return nil
	}
	return c.cpu[:]
}
