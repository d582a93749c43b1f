//go:build race

package sys

// raceEnabled says the race detector is built in: its shadow memory and
// per-thread state are private anonymous mappings that a forked child's
// atomics and instrumented calls reach (see ForkArena.Lean).
const raceEnabled = true
