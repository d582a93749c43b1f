package bisect

// The words for the judge's facts are report's, and report imports
// bisect: this package's tests reach them through these hooks, which
// words_test.go (package bisect_test) sets to report's functions.
var (
	LineOf     func(Evidence, int) string
	WhyOf      func(Evidence) string
	WarningsOf func([]Warning) []string
	StopsOf    func([]Stop) []string
)
