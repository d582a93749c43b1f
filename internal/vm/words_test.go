package vm_test

import (
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/vm"
)

// The boots' tests read why they stopped in report's words, as kdelta vm
// and kdelta series print them.
func init() { vm.BootStopLines = report.BootStops }
