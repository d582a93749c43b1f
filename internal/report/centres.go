package report

import (
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/stats"
)

// Centres returns the two figures a line prints beside the change of c,
// the comparison of side b with side a, and which centre they are: the
// estimator's own (stats.Comparison.Centres), so that the figures and the
// change agree in sign and size; the sides' centres when the comparison
// estimated no change.
func Centres(c stats.Comparison, a, b compare.Side) (x, y float64, name string) {
	if c.Centre != "" {
		return c.Centres[0], c.Centres[1], c.Centre
	}
	return centre(a), centre(b), ""
}
