package sysinfo_test

import (
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// The fingerprint's tests read it as kdelta env and env diff print it.
func init() {
	sysinfo.WriteText = report.WriteEnv
	sysinfo.WriteDiffText = report.WriteEnvDiff
}
