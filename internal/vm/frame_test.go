package vm

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func frameBytes(kind string, payload []byte) []byte {
	var b bytes.Buffer
	writeFrame(&b, kind, payload)
	return b.Bytes()
}

func TestParseFrames(t *testing.T) {
	result := frameBytes(frameResult, []byte("\x1f\x8b binary\n\x00 payload KDELTA/1 result 1 00\n"))
	good := frameBytes(frameError, []byte("workload failed"))
	sum := sha256.Sum256([]byte("abc"))
	tests := []struct {
		name    string
		in      []byte
		kinds   []string
		wantErr string
	}{
		{name: "one frame", in: result, kinds: []string{frameResult}},
		{name: "frames among console noise", in: append(append([]byte("[ 1.0] booting\r\nnoise"), good...), []byte("more noise")...), kinds: []string{frameError}},
		{name: "two frames", in: append(append([]byte{}, good...), result...), kinds: []string{frameError, frameResult}},
		{name: "magic inside a line is not a header", in: []byte("text KDELTA/1 result 3 abc\n"), wantErr: "no frame"},
		{name: "nothing", in: nil, wantErr: "no frame"},
		{name: "only noise", in: []byte("Kernel panic - not syncing\n"), wantErr: "no frame"},
		{name: "cut header", in: []byte("KDELTA/1 result 12"), wantErr: "header line cut off"},
		{name: "bad field count", in: []byte("KDELTA/1 result 3\nabc\n"), wantErr: "malformed header"},
		{name: "unknown kind", in: []byte(fmt.Sprintf("KDELTA/1 hello 3 %x\nabc\n", sum)), wantErr: "unknown kind"},
		{name: "bad length", in: []byte(fmt.Sprintf("KDELTA/1 result -3 %x\nabc\n", sum)), wantErr: "bad length"},
		{name: "huge length", in: []byte(fmt.Sprintf("KDELTA/1 result 99999999999 %x\nabc\n", sum)), wantErr: "bad length"},
		{name: "bad checksum field", in: []byte("KDELTA/1 result 3 xyz\nabc\n"), wantErr: "bad checksum field"},
		{name: "truncated payload", in: result[:len(result)-10], wantErr: "truncated"},
		{name: "garbled payload", in: bytes.Replace(result, []byte("binary"), []byte("BINARY"), 1), wantErr: "checksum mismatch"},
		{name: "no newline after payload", in: []byte(fmt.Sprintf("KDELTA/1 result 3 %x\nabcX", sum)), wantErr: "not followed by a newline"},
		{name: "good frame then a bad one", in: append(append([]byte{}, good...), []byte("KDELTA/1 result 3\n")...), kinds: []string{frameError}, wantErr: "malformed header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFrames(tt.in)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if len(got) != len(tt.kinds) {
				t.Fatalf("got %d frames, want %d", len(got), len(tt.kinds))
			}
			for i, k := range tt.kinds {
				if got[i].Kind != k {
					t.Errorf("frame %d kind %q, want %q", i, got[i].Kind, k)
				}
			}
		})
	}
	if _, err := parseFrames(nil); !errors.Is(err, errNoFrame) {
		t.Errorf("empty input: %v, want errNoFrame", err)
	}
}

func TestFramePayloadIntact(t *testing.T) {
	payload := make([]byte, 1<<16)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	fs, err := parseFrames(frameBytes(frameResult, payload))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fs[0].Payload, payload) {
		t.Error("payload changed on the way")
	}
}

// FuzzParseFrames feeds the frame reader what a serial line might carry:
// it must never panic, and every frame it accepts must have the payload
// its header promised.
func FuzzParseFrames(f *testing.F) {
	f.Add(frameBytes(frameResult, []byte("payload")))
	f.Add(append([]byte("noise\n"), frameBytes(frameError, []byte("oops"))...))
	f.Add([]byte("KDELTA/1 result 5 00\nabc"))
	f.Add([]byte("\nKDELTA/1 result 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		frames, _ := parseFrames(data)
		for _, fr := range frames {
			if fr.Kind != frameResult && fr.Kind != frameError {
				t.Fatalf("accepted kind %q", fr.Kind)
			}
			again, err := parseFrames(frameBytes(fr.Kind, fr.Payload))
			if err != nil || !bytes.Equal(again[0].Payload, fr.Payload) {
				t.Fatalf("accepted frame does not survive a round trip: %v", err)
			}
		}
	})
}
