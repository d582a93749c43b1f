package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/mail"
)

// TestReadingShapes checks the reading and the reply draft of the mails
// of internal/mail/testdata that carry the list's other table shapes
// (mmtests, AMD's pct, normalized, Relative, spreads glued on) and
// stress-ng --metrics-brief output against their goldens; the figures
// themselves are checked by hand in internal/mail's TestShape and
// TestStressNGMail. Every line of a reply fits 72 columns.
func TestReadingShapes(t *testing.T) {
	for _, n := range []string{"mmtests", "pct", "normalized", "relative", "glued", "stressng"} {
		t.Run(n, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "mail", "testdata", n+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			a, err := mail.Analyze(n+".txt", data)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			Reading(&b, a)
			golden.Check(t, "reading-shape-"+n+".txt", b.Bytes())
			b.Reset()
			Reply(&b, a, nil)
			golden.Check(t, "reply-shape-"+n+".txt", b.Bytes())
			for i, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				if c := len([]rune(l)); c > replyWidth {
					t.Errorf("reply line %d: %d columns: %q", i+1, c, l)
				}
			}
		})
	}
}
