package vm

import "github.com/kdelta/kdelta/internal/guest"

// The guest's side of the channel and of the job file, under the names
// the host's tests use for them.
var (
	writeFrame   = guest.WriteFrame
	unmarshalJob = guest.UnmarshalJob
)
