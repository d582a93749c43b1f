// Command kdelta-guest is kdelta as the /init of a kernel that kdelta vm
// boots: it runs the job the host put in the initramfs, each measured run
// in a child that re-executes it, and sends the result set home. It
// carries only what measures (package guest), so it is a third of
// kdelta's size: kdelta vm puts it in the initramfs in kdelta's place.
// It is nothing else: run anywhere but as a guest's /init, it says so and
// exits 2.
package main

import (
	"fmt"
	"os"

	"github.com/kdelta/kdelta/internal/guest"
	"github.com/kdelta/kdelta/internal/runner"
)

func main() {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	if !guest.IsGuest() {
		fmt.Fprintln(os.Stderr, "kdelta-guest: not a guest's /init: kdelta vm puts this binary in a guest's initramfs; run kdelta itself")
		os.Exit(2)
	}
	os.Exit(guest.Main())
}
