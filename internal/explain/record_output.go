package explain

import (
	"path/filepath"
	"strings"
)

// profiledOutput is the -o FILE of a command line that explain suggests
// re-running with --profile, made a file of its own (a1.json:
// a1-profiled.json): the command as it was run would overwrite the set
// being explained (issue 35 point 11).
func profiledOutput(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case (a == "-o" || a == "--output") && i+1 < len(args):
			out = append(out, a, profiledName(args[i+1]))
			i++
		case strings.HasPrefix(a, "--output="):
			out = append(out, "--output="+profiledName(strings.TrimPrefix(a, "--output=")))
		case strings.HasPrefix(a, "-o="):
			out = append(out, "-o="+profiledName(a[3:]))
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			out = append(out, "-o"+profiledName(a[2:]))
		default:
			out = append(out, a)
		}
	}
	return out
}

// profiledName is path with "-profiled" before its extension; a device or
// pipe (-o /dev/stdout) is kept, as it is no file to overwrite.
func profiledName(path string) string {
	if strings.HasPrefix(path, "/dev/") || strings.HasPrefix(path, "/proc/self/fd/") {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-profiled" + ext
}
