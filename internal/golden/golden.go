// Package golden compares what a test produced with a file under the
// package's testdata directory, and rewrites the file instead when the
// tests run with -update. Only tests import it.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// Check compares got with testdata/name, or writes it there under
// -update, and reports whether they matched. A mismatch fails t with the
// first lines where the two part.
func Check(t testing.TB, name string, got []byte) bool {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) || sameButRounding(string(want), string(got)) {
		return true
	}
	t.Errorf("%s differs from the output (go test -update rewrites it):\n%s", path, lineDiff(string(want), string(got)))
	return false
}

// lineDiff shows the first lines where want and got part.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, w, g)
			if shown++; shown == 5 {
				break
			}
		}
	}
	return b.String()
}

// number is a decimal figure as the outputs print them.
var number = regexp.MustCompile(`[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// sameButRounding reports whether want and got differ only in the last
// digits of long figures: the same text around the same count of
// numbers, each pair within one part in 10⁸. Go fuses a multiply and an
// add into one instruction on ppc64le, arm64 and s390x, which rounds
// once instead of twice; a p-value printed to twelve digits then differs
// from amd64's in its tenth. A figure that changed in earnest, or any
// change of words, still fails.
func sameButRounding(want, got string) bool {
	if number.ReplaceAllString(want, "#") != number.ReplaceAllString(got, "#") {
		return false
	}
	wn, gn := number.FindAllString(want, -1), number.FindAllString(got, -1)
	if len(wn) != len(gn) {
		return false
	}
	for i := range wn {
		if wn[i] == gn[i] {
			continue
		}
		w, err1 := strconv.ParseFloat(wn[i], 64)
		g, err2 := strconv.ParseFloat(gn[i], 64)
		if err1 != nil || err2 != nil || math.Abs(w-g) > 1e-8*math.Max(math.Abs(w), math.Abs(g)) {
			return false
		}
	}
	return true
}
