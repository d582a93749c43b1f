package sys

import "strings"

// KmsgText is the message of one /dev/kmsg record, "PRIO,SEQ,USEC,FLAGS;
// TEXT" followed by continuation lines of key=value: TEXT.
func KmsgText(record string) string {
	_, text, ok := strings.Cut(record, ";")
	if !ok {
		text = record
	}
	text, _, _ = strings.Cut(text, "\n")
	return text
}
