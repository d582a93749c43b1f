package result

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// importID is a new set's id: its time and six random bytes, as kdelta
// run's. It used to be the time and a hash of the content, so the same
// file imported twice in one second (or eight times at once) with
// different labels was one set, the last import's labels overwriting the
// others (issue 35 point 9). A comparison of a set with its copy still
// says they are the same result set (by content, in compare).
func importID(created time.Time) string {
	var b [6]byte
	rand.Read(b[:])
	return created.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}
