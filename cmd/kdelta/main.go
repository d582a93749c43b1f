// Command kdelta tells whether a kernel change made a machine faster or
// slower, by how much, and whether the difference is real.
package main

import (
	"context"
	"os"

	"github.com/kdelta/kdelta/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
