package result

import (
	"fmt"
	"sort"
	"strings"
)

// ReadRun reads the output of one run of a tool, in one of the import
// formats (perf-bench, stress-ng, hackbench), with the same reader Import
// uses, and returns that run's figures keyed by the importer's metric
// names. It is how the command workload's parse= reads what the tool it
// ran printed, so an imported file and a measured run of the same text can
// never disagree. Output that holds more than one benchmark or run is an
// error: a run has one value per metric.
func ReadRun(format, name, text string) (map[string]float64, error) {
	s, err := Import(name, []byte(text), format)
	if err != nil {
		return nil, err
	}
	if len(s.Benchmarks) != 1 {
		var names []string
		for _, b := range s.Benchmarks {
			names = append(names, strings.TrimSpace(b.Workload+" "+FormatParams(b.Params)))
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%s: %d benchmarks in one run's output (%s): run one benchmark per command", name, len(names), strings.Join(names, "; "))
	}
	b := s.Benchmarks[0]
	if len(b.Runs) != 1 {
		return nil, fmt.Errorf("%s: %d runs of %s in one run's output: run one benchmark once per command", name, len(b.Runs), b.Workload)
	}
	out := map[string]float64{}
	for k, v := range b.Runs[0].Values {
		out[k] = v
	}
	return out, nil
}
