package bisect_test

import (
	"github.com/kdelta/kdelta/internal/bisect"
	"github.com/kdelta/kdelta/internal/report"
)

// The judge's tests read its evidence in report's words, as bisect-run
// and run --until-conclusive print it.
func init() {
	bisect.LineOf = report.BisectLine
	bisect.WhyOf = report.BisectWhy
	bisect.WarningsOf = report.BisectWarnings
	bisect.StopsOf = report.UntilStops
}
