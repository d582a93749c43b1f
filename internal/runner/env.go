package runner

import (
	"runtime"

	"github.com/kdelta/kdelta/internal/sysinfo"
)

// Fingerprint takes this machine's fingerprint for a result set, with the
// versions of kdelta, Go and the external tools whose output kdelta reads.
func Fingerprint(version string) *sysinfo.Fingerprint {
	tools := sysinfo.ToolVersions()
	tools["kdelta"] = version
	tools["go"] = runtime.Version()
	return sysinfo.Collect(sysinfo.FS{Root: "/"}, sysinfo.Options{Tools: tools})
}
