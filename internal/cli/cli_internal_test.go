package cli

import (
	"io"
	"io/fs"
	"path"
	"strings"
	"testing"
)

// TestUsageLinuxOnlyCommandsExist checks that every command the list of
// commands needing Linux names is a command, with a RunE to guard, so a
// renamed command cannot start measuring on a laptop unnoticed.
func TestUsageLinuxOnlyCommandsExist(t *testing.T) {
	guarded := map[string]bool{}
	for cmds := newRoot(io.Discard, io.Discard).Commands(); len(cmds) > 0; cmds = cmds[1:] {
		c := cmds[0]
		guarded[c.CommandPath()] = c.RunE != nil
		cmds = append(cmds, c.Commands()...)
	}
	for path := range linuxOnlyCommands {
		if !guarded[path] {
			t.Errorf("%q needs Linux, but no such command has a RunE", path)
		}
	}
}

// TestHelpFilesUsed checks that every help file is some command's long
// help under the name it is filed by, so a file whose command was renamed
// or removed does not linger unread.
func TestHelpFilesUsed(t *testing.T) {
	longs := map[string]string{}
	for cmds := newRoot(io.Discard, io.Discard).Commands(); len(cmds) > 0; cmds = cmds[1:] {
		c := cmds[0]
		name := strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "kdelta "), " ", "-")
		longs[name] = c.Long
		cmds = append(cmds, c.Commands()...)
	}
	files, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("help files: %v %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".txt")
		if long, ok := longs[name]; !ok || long != longHelp(name) {
			t.Errorf("%s: no command %q shows it as its long help", f, name)
		}
	}
}
