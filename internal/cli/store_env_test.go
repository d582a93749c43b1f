package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// storeTestMark is set in the environment of the processes of one test
// run, so the test binary, re-executed as a measured child, keeps the
// store its parent chose.
const storeTestMark = "KDELTA_TEST_STORE_CHOSEN"

// init keeps every test of this package away from the user's store: kdelta
// run, stat and import record into $XDG_DATA_HOME/kdelta/kdelta.db, so the
// test process points XDG_DATA_HOME at a directory of its own, under the
// temporary directory, before any test runs. Commands of testscript
// scripts (HOME=/no-home, the rest of the environment dropped) share a
// store in the script's $WORK unless the script sets XDG_DATA_HOME. Tests
// that need a store of their own set XDG_DATA_HOME or pass --store.
func init() {
	os.Unsetenv("KDELTA_STORE")
	if os.Getenv("HOME") == "/no-home" && os.Getenv("WORK") != "" {
		if os.Getenv("XDG_DATA_HOME") == "" {
			os.Setenv("XDG_DATA_HOME", filepath.Join(os.Getenv("WORK"), ".local", "share"))
		}
		return
	}
	if os.Getenv(storeTestMark) != "" {
		return
	}
	os.Setenv(storeTestMark, "1")
	os.Setenv("XDG_DATA_HOME", filepath.Join(os.TempDir(), fmt.Sprintf("%s%d", storeTestPrefix, os.Getpid())))
	// Nothing runs after the tests to remove the directory, so each test
	// process removes those of earlier ones that have exited.
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), storeTestPrefix+"*"))
	for _, dir := range old {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), storeTestPrefix))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			os.RemoveAll(dir)
		}
	}
}

// storeTestPrefix starts the names of the test processes' store
// directories, which end with the process id.
const storeTestPrefix = "kdelta-cli-test-"
