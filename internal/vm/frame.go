package vm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/kdelta/kdelta/internal/guest"
)

// The guest sends what it has to say as frames (guest.WriteFrame); the
// host believes a payload only when its length and hash match.
const frameMagic = guest.FrameMagic

// Frame kinds.
const (
	frameResult = guest.FrameResult
	frameError  = guest.FrameError
	frameBoot   = guest.FrameBoot
)

// maxFrame bounds a payload: a result set with raw latencies kept, gzip
// compressed, is a few megabytes.
const maxFrame = 256 << 20

// A frame is one message from the guest.
type frame struct {
	Kind    string
	Payload []byte
}

// errNoFrame says the guest's channel held no frame at all.
var errNoFrame = errors.New("no frame")

// parseFrames returns the frames in data, in order. Bytes outside frames
// are ignored (a frame header is recognised only at the start of a line).
// The first malformed frame ends the scan with an error that says what
// was wrong; frames before it are returned.
func parseFrames(data []byte) ([]frame, error) {
	var out []frame
	off := 0
	for off < len(data) {
		i := bytes.Index(data[off:], []byte(frameMagic))
		if i < 0 {
			break
		}
		start := off + i
		if start > 0 && data[start-1] != '\n' {
			// Not at the start of a line: text that happens to contain
			// the magic.
			off = start + len(frameMagic)
			continue
		}
		nl := bytes.IndexByte(data[start:], '\n')
		if nl < 0 {
			return out, fmt.Errorf("frame at byte %d: header line cut off", start)
		}
		f, n, err := parseFrame(data[start:], nl)
		if err != nil {
			return out, fmt.Errorf("frame at byte %d: %w", start, err)
		}
		out = append(out, f)
		off = start + n
	}
	if len(out) == 0 {
		return nil, errNoFrame
	}
	return out, nil
}

// parseFrame parses the frame at the start of b, whose header line ends at
// nl, and returns it with the number of bytes it took.
func parseFrame(b []byte, nl int) (frame, int, error) {
	header := string(b[len(frameMagic):nl])
	fields := bytes.Fields([]byte(header))
	if len(fields) != 3 {
		return frame{}, 0, fmt.Errorf("malformed header %q", truncate(header, 80))
	}
	kind := string(fields[0])
	if kind != frameResult && kind != frameError && kind != frameBoot {
		return frame{}, 0, fmt.Errorf("unknown kind %q", truncate(kind, 20))
	}
	n, err := strconv.Atoi(string(fields[1]))
	if err != nil || n < 0 || n > maxFrame {
		return frame{}, 0, fmt.Errorf("bad length %q", truncate(string(fields[1]), 20))
	}
	want, err := hex.DecodeString(string(fields[2]))
	if err != nil || len(want) != sha256.Size {
		return frame{}, 0, fmt.Errorf("bad checksum field %q", truncate(string(fields[2]), 80))
	}
	body := b[nl+1:]
	if len(body) < n {
		return frame{}, 0, fmt.Errorf("truncated: %s frame of %d bytes, %d arrived", kind, n, len(body))
	}
	payload := body[:n]
	if sum := sha256.Sum256(payload); !bytes.Equal(sum[:], want) {
		return frame{}, 0, fmt.Errorf("checksum mismatch in %s frame of %d bytes", kind, n)
	}
	if len(body) == n || body[n] != '\n' {
		return frame{}, 0, fmt.Errorf("%s frame of %d bytes not followed by a newline", kind, n)
	}
	return frame{Kind: kind, Payload: payload}, nl + 1 + n + 1, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
