package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/stats"
)

// sessionNoiseFlag is --session-noise P%: the session noise that every
// comparison of one session a side assumes, in place of the host's and
// of the prior; 0 judges the runs as independent.
type sessionNoiseFlag struct{ s string }

func (f *sessionNoiseFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.s, "session-noise", "", "assume this session noise (percent) for one session a side, instead of the host's calibration or the prior for its kind of machine; 0 judges runs as independent")
}

// value is the figure given, nil when none was.
func (f *sessionNoiseFlag) value() (*float64, error) {
	s := strings.TrimSpace(f.s)
	if s == "" {
		return nil, nil
	}
	if v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64); err == nil && v == 0 {
		return &v, nil
	}
	v, err := stats.ParsePercent(s)
	if err != nil || v >= 1 {
		return nil, fmt.Errorf("--session-noise: %q is not a percentage from 0 to 100 (such as 8%%)", f.s)
	}
	return &v, nil
}
