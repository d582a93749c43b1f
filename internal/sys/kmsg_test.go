package sys

import "testing"

// TestKmsgText checks the message of /dev/kmsg records: the text after
// the header's ";", without the continuation lines.
func TestKmsgText(t *testing.T) {
	for rec, want := range map[string]string{
		"4,1029,123456789,-;sched: RT throttling activated\n":                               "sched: RT throttling activated",
		"6,2,5,c;virtio_net virtio0: link up\n SUBSYSTEM=virtio\n DEVICE=+virtio:virtio0\n": "virtio_net virtio0: link up",
		"no header\n": "no header",
		"6,3,9,-;a;b": "a;b",
	} {
		if got := KmsgText(rec); got != want {
			t.Errorf("KmsgText(%q) = %q, want %q", rec, got, want)
		}
	}
}
