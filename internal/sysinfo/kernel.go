package sysinfo

import (
	"strings"
)

// kernel reads the release, version, compiler and command line.
func (c *collector) kernel() {
	fp := c.fp
	k := &fp.Kernel
	k.Release = c.fs.fact("proc/sys/kernel/osrelease")

	banner, err := c.fs.readString("proc/version")
	if err != nil {
		k.Version = unknown("proc/version", err)
		k.Compiler = k.Version
	} else {
		rel, comp, ver := parseProcVersion(banner)
		if ver != "" {
			k.Version = Fact{Value: ver, Source: "/proc/version"}
			c.uname = ver
		} else {
			k.Version = Fact{Unknown: "no \"#\" build line in /proc/version"}
		}
		if comp != "" {
			k.Compiler = Fact{Value: comp, Source: "/proc/version"}
		} else {
			k.Compiler = Fact{Unknown: "no compiler in /proc/version"}
		}
		if !k.Release.Known() && rel != "" {
			k.Release = Fact{Value: rel, Source: "/proc/version"}
		}
	}

	k.Cmdline = c.fs.fact("proc/cmdline")
	c.cmdList, c.cmdline = parseCmdline(k.Cmdline.Value)

	fp.Hostname = c.fs.fact("proc/sys/kernel/hostname")
	if !fp.Hostname.Known() {
		if h := c.fs.fact("etc/hostname"); h.Known() {
			fp.Hostname = h
		}
	}
	fp.OS = c.osRelease()
}

// parseProcVersion splits the /proc/version banner
// "Linux version REL (USER@HOST) (COMPILER) #1 SMP ..." into the release,
// the compiler and the uname -v part. Parentheses nest in compiler names
// ("gcc (GCC) 15.3.0"), so they are matched, not split on.
func parseProcVersion(s string) (release, compiler, version string) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, "Linux version ")
	if !ok {
		return "", "", ""
	}
	release, rest, _ = strings.Cut(rest, " ")
	if i := strings.Index(rest, " #"); i >= 0 {
		version = strings.TrimSpace(rest[i+1:])
		rest = rest[:i]
	} else if strings.HasPrefix(rest, "#") {
		version, rest = rest, ""
	}
	// rest is now "(user@host) (compiler...)": take the last group.
	var groups []string
	depth, start := 0, -1
	for i, r := range rest {
		switch r {
		case '(':
			if depth == 0 {
				start = i + 1
			}
			depth++
		case ')':
			if depth > 0 {
				depth--
				if depth == 0 && start >= 0 {
					groups = append(groups, rest[start:i])
					start = -1
				}
			}
		}
	}
	if len(groups) >= 2 {
		compiler = strings.TrimSpace(groups[len(groups)-1])
	}
	return release, compiler, version
}

// parseCmdline splits a kernel command line into its parameters, honouring
// double quotes (param="a b") and stopping at "--", after which the
// arguments belong to init. The map keeps the last value of each key, as
// the kernel does for most parameters; a flag without "=" maps to "".
func parseCmdline(s string) ([]string, map[string]string) {
	var params []string
	var cur strings.Builder
	inQuote, have := false, false
	flush := func() {
		if have {
			params = append(params, cur.String())
		}
		cur.Reset()
		have = false
	}
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			have = true
		case !inQuote && (r == ' ' || r == '\t' || r == '\n'):
			flush()
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	flush()
	m := make(map[string]string)
	for i, p := range params {
		if p == "--" {
			params = params[:i]
			break
		}
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return params, m
}

// osRelease reads PRETTY_NAME from /etc/os-release, or from
// /usr/lib/os-release where /etc has none.
func (c *collector) osRelease() Fact {
	rel := "etc/os-release"
	data, err := c.fs.read(rel)
	if err != nil {
		var err2 error
		if data, err2 = c.fs.read("usr/lib/os-release"); err2 != nil {
			return unknown(rel, err)
		}
		rel = "usr/lib/os-release"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PRETTY_NAME="); ok {
			return Fact{Value: strings.Trim(v, `"'`), Source: "/" + rel}
		}
	}
	return Fact{Unknown: "no PRETTY_NAME in /" + rel}
}
