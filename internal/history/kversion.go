package history

import (
	"strings"
)

// CompareKernelVersions orders kernel release strings the way kernel
// developers read them, and returns -1, 0 or +1 as a is before, equal to or
// after b:
//
//	6.15-rc6 < 6.15 < 6.15.1 < 6.16-rc1 < 6.16 < 6.16.3
//
// The numeric version is compared number by number, a missing number
// counting as 0 (6.15 and 6.15.0 are the same release). A release
// candidate comes before its release, whether it is written the upstream
// way (6.16-rc1), the Debian way (6.16~rc1) or the Fedora way, where the
// package release of a candidate starts with "0.rcN"
// (6.16.0-0.rc1.20250601git1234.19.fc43). What follows (distribution
// suffixes such as -eln150, .fc43 or -200.fc43.x86_64, local versions such
// as +) orders last, with digit runs compared as numbers, so -eln99 comes
// before -eln150. Strings that are not versions sort after every version,
// in the same natural order. Strings that compare equal in every respect
// (6.15 and 6.15.0) are finally ordered as plain strings, so the order is
// total and sorting is deterministic.
func CompareKernelVersions(a, b string) int {
	if a == b {
		return 0
	}
	ka, kb := parseKernelVersion(a), parseKernelVersion(b)
	if c := cmpBool(!ka.ok, !kb.ok); c != 0 {
		return c
	}
	if ka.ok {
		n := max(len(ka.nums), len(kb.nums))
		for i := 0; i < n; i++ {
			if c := cmpDigits(numAt(ka.nums, i), numAt(kb.nums, i)); c != 0 {
				return c
			}
		}
		// A candidate (rc true) comes before the release (rc false).
		if c := cmpBool(!ka.rc, !kb.rc); c != 0 {
			return c
		}
		if ka.rc {
			if c := cmpDigits(ka.rcNum, kb.rcNum); c != 0 {
				return c
			}
		}
	}
	if c := cmpNatural(ka.rest, kb.rest); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// kernelVersion is a release string taken apart for ordering.
type kernelVersion struct {
	ok    bool     // it starts with a version number
	nums  []string // the dotted numbers, as digit strings
	rc    bool     // a release candidate
	rcNum string   // its number, as a digit string
	rest  string   // everything else, compared naturally
}

func parseKernelVersion(s string) kernelVersion {
	var k kernelVersion
	t := s
	if len(t) > 1 && (t[0] == 'v' || t[0] == 'V') && isDigit(t[1]) {
		t = t[1:]
	}
	for {
		n := digitRun(t)
		if n == 0 {
			break
		}
		k.nums = append(k.nums, t[:n])
		t = t[n:]
		// Only a dot followed by a digit continues the version: in
		// "6.16.0-65.fc43" the ".fc43" is a suffix, not a number.
		if len(t) > 1 && t[0] == '.' && isDigit(t[1]) {
			t = t[1:]
			continue
		}
		break
	}
	if len(k.nums) == 0 {
		k.rest = s
		return k
	}
	k.ok = true
	for _, p := range []string{"-rc", "~rc", "-0.rc", "_rc"} {
		if len(t) > len(p) && strings.EqualFold(t[:len(p)], p) {
			if n := digitRun(t[len(p):]); n > 0 {
				k.rc = true
				k.rcNum = t[len(p) : len(p)+n]
				t = t[len(p)+n:]
				break
			}
		}
	}
	k.rest = t
	return k
}

// numAt returns the i-th number of a version, 0 when it has fewer.
func numAt(nums []string, i int) string {
	if i < len(nums) {
		return nums[i]
	}
	return "0"
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// cmpDigits compares two digit strings as numbers of any length.
func cmpDigits(a, b string) int {
	a = strings.TrimLeft(a, "0")
	b = strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// cmpNatural compares strings piece by piece, digit runs as numbers and
// everything else byte by byte; a digit run comes before other text at the
// same position, and a string that is a prefix of the other comes first.
func cmpNatural(a, b string) int {
	for a != "" && b != "" {
		na, nb := digitRun(a), digitRun(b)
		switch {
		case na > 0 && nb > 0:
			if c := cmpDigits(a[:na], b[:nb]); c != 0 {
				return c
			}
			a, b = a[na:], b[nb:]
		case na > 0:
			return -1
		case nb > 0:
			return 1
		default:
			ta, tb := textRun(a), textRun(b)
			if c := strings.Compare(a[:ta], b[:tb]); c != 0 {
				return c
			}
			a, b = a[ta:], b[tb:]
		}
	}
	return cmpBool(a != "", b != "")
}

func textRun(s string) int {
	n := 0
	for n < len(s) && !isDigit(s[n]) {
		n++
	}
	return n
}
