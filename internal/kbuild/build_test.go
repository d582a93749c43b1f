package kbuild_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/kbuild"
	"github.com/kdelta/kdelta/internal/kbuild/kbuildtest"
)

// TestBuildCached builds Debian's 6.1 source at its base commit with
// tinyconfig and the fragment (or finds it in the tests' cache), checks
// what the build records, and asks for it again: the second time builds
// nothing.
func TestBuildCached(t *testing.T) {
	dir := kbuildtest.Source(t)
	srcs, err := kbuild.Resolve("git:"+dir+"@"+kbuildtest.BaseTag, false)
	if err != nil {
		t.Fatal(err)
	}
	opt := &kbuild.Options{Config: "tinyconfig", Cache: kbuildtest.BuildCache(), Log: testLog{t}}
	k, err := kbuild.Build(context.Background(), srcs[0], opt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(k.Release, "-g"+kbuildtest.Short(srcs[0].Commit)) {
		t.Errorf("release %q does not end in the commit's -gHASH", k.Release)
	}
	if len(k.NotOn) != 0 {
		t.Errorf("options of the fragment not on: %v", k.NotOn)
	}
	cfg, err := os.ReadFile(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	if s := sha256.Sum256(cfg); hex.EncodeToString(s[:]) != k.ConfigHash {
		t.Errorf("config hash %s is not the SHA-256 of %s", k.ConfigHash, k.Config)
	}
	if k.Source.Subject != "linux-source-6.1 as Debian ships it" {
		t.Errorf("subject %q", k.Source.Subject)
	}
	again, err := kbuild.Build(context.Background(), srcs[0], opt)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || again.Image != k.Image {
		t.Errorf("second build: cached %v, image %s (first %s): want the cached one", again.Cached, again.Image, k.Image)
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
