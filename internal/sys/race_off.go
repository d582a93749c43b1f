//go:build !race

package sys

// raceEnabled says the race detector is built in (see race_on.go).
const raceEnabled = false
