package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestGuestIsLean is issue 36's lean guest: the binary vm puts in the
// initramfs links what measures and nothing of the store, the lab's
// queue, the database drivers, the browser or the web, on every
// architecture vm boots.
func TestGuestIsLean(t *testing.T) {
	testenv.NeedCommand(t, "go", "golang")
	banned := []string{
		"modernc.org/sqlite", "github.com/riverqueue/", "github.com/jackc/pgx", "github.com/chromedp/",
		"database/sql",
		"github.com/kdelta/kdelta/internal/store", "github.com/kdelta/kdelta/internal/web",
		"github.com/kdelta/kdelta/internal/lab", "github.com/kdelta/kdelta/internal/report",
		"github.com/kdelta/kdelta/internal/cli", "github.com/kdelta/kdelta/internal/vm",
	}
	for _, arch := range []string{"amd64", "arm64", "ppc64le", "s390x"} {
		t.Run(arch, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", ".")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list -deps: %v", err)
			}
			deps := strings.Fields(string(out))
			if !slices.Contains(deps, "github.com/kdelta/kdelta/internal/guest") || !slices.Contains(deps, "github.com/kdelta/kdelta/internal/workload") {
				t.Fatalf("go list -deps does not list the guest and the workloads:\n%s", out)
			}
			for _, b := range banned {
				for _, d := range deps {
					if d == b || strings.HasPrefix(d, b) && (strings.HasSuffix(b, "/") || strings.HasPrefix(d, b+"/")) {
						t.Errorf("the guest binary depends on %s", d)
					}
				}
			}
		})
	}
}
