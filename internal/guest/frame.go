package guest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
)

// The guest sends what it has to say to the host over its second serial
// port as frames. A frame is a header line, the payload and a newline:
//
//	KDELTA/1 KIND LENGTH SHA256\n
//	PAYLOAD\n
//
// KIND is "result" (the payload is the result set, JSON, gzip-compressed),
// "error" (the payload is a one-line message) or "boot" (a BootReport,
// JSON: what a guest that kexecs, or was kexeced into, says of its boot).
// LENGTH is the payload's size in decimal, SHA256 its hash in hex. A
// serial line can drop, duplicate or garble bytes and the guest may die
// mid-frame, so the host (vm) believes a payload only when its length
// and hash match.
const FrameMagic = "KDELTA/1 "

// Frame kinds.
const (
	FrameResult = "result"
	FrameError  = "error"
	FrameBoot   = "boot"
)

// WriteFrame writes one frame to w. The header starts on a line of its
// own, whatever was written before.
func WriteFrame(w io.Writer, kind string, payload []byte) error {
	sum := sha256.Sum256(payload)
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n%s%s %d %s\n", FrameMagic, kind, len(payload), hex.EncodeToString(sum[:]))
	b.Write(payload)
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// channels are the guest's device of the result channel, by GOARCH: the
// second port vm's qemu arguments give each architecture (see vm's
// arches).
var channels = map[string]string{
	"amd64":   "/dev/ttyS1",
	"ppc64le": "/dev/hvc1",
	"arm64":   "/dev/ttyS0",
	"s390x":   "/dev/ttysclp0",
}

// channel is the channel device of the architecture this binary was
// built for.
func channel() string {
	if c, ok := channels[runtime.GOARCH]; ok {
		return c
	}
	return channels["amd64"]
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
