package sysinfo

import "io"

// The text forms of kdelta env and env diff are report's, and report
// imports sysinfo: this package's tests (their goldens among them) reach
// them through these hooks, which words_test.go (package sysinfo_test)
// sets to report's functions.
var (
	WriteText     func(io.Writer, *Fingerprint) error
	WriteDiffText func(io.Writer, []Difference) error
)

// textWidth is the widest line of the text forms: they paste into a mail
// unchanged.
const textWidth = 100
