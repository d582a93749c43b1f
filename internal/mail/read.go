// Package mail reads a performance report as it arrives on a mailing list
// (a plain-text paste, an .eml file or an mbox thread), finds what it ran
// and what it measured, checks the claims it makes of its own numbers, and
// maps its commands onto kdelta's workloads.
//
// A mail is read on its shapes, not on known texts: headers through
// net/mail, MIME parts through mime/multipart, quoted-printable through
// mime/quotedprintable, and every quoted reply level kept apart so that the
// numbers of a report and of the reply quoting it are never mixed. The
// tables and outputs it holds are read by kdelta's importers
// (internal/result), each applied to the span of text it belongs to.
package mail

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"regexp"
	"strings"
	"unicode/utf8"
)

// A Message is one mail: the headers a reply needs and its body as lines,
// each with its quote level.
type Message struct {
	ID, Subject, From, Date, InReplyTo string
	References                         []string
	// Lines is the body, one entry per line, the quote marks removed.
	Lines []Line
	// Flattened is set when the mail arrived with its line breaks lost
	// (a web archive's paste): its lines were restored at its quote marks,
	// and line numbers count the restored lines.
	Flattened bool
	// Index is the message's place in its thread, from 0.
	Index int
}

// A Line is one line of a body.
type Line struct {
	// N is the 1-based line number in the body as read (restored lines
	// for a flattened mail).
	N int
	// Level is the number of quote marks (">") before the text.
	Level int
	Text  string
	// Raw is the line as the mail wrote it, quote marks included.
	Raw string
}

// Read reads a mail or a thread: an mbox (first line "From "), a message
// with RFC 5322 headers (an .eml), or plain text such as a web archive's
// page. It fails only when data holds nothing.
func Read(data []byte) ([]*Message, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("empty input: expected a mail, an mbox or a pasted report")
	}
	if !utf8.Valid(data) {
		data = latin1(data)
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	var msgs []*Message
	if parts, starts := splitMbox(data); parts != nil {
		for i, p := range parts {
			msgs = append(msgs, readOne(p, starts[i]))
		}
	} else {
		msgs = []*Message{readOne(data, 0)}
	}
	for i, m := range msgs {
		m.Index = i
	}
	return msgs, nil
}

// latin1 turns bytes that are not UTF-8 into runes one for one, as
// ISO 8859-1 (the commonest charset of old list mail) reads them.
func latin1(b []byte) []byte {
	var out bytes.Buffer
	for _, c := range b {
		out.WriteRune(rune(c))
	}
	return out.Bytes()
}

var mboxFromRE = regexp.MustCompile(`^From \S+ .*\d{4}\s*$`)

// splitMbox splits an mbox into its messages, with the number of lines
// of the file before each, or returns nil when data is not one. A line
// "From ..." after a blank line starts a message; mboxrd's ">From "
// escapes are undone.
func splitMbox(data []byte) ([][]byte, []int) {
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 || !mboxFromRE.MatchString(lines[0]) || !headerLineRE.MatchString(lines[1]) {
		return nil, nil
	}
	var out [][]byte
	var starts []int
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, []byte(strings.Join(cur, "\n")))
		}
		cur = nil
	}
	for i, l := range lines {
		if mboxFromRE.MatchString(l) && (i == 0 || strings.TrimSpace(lines[i-1]) == "") {
			flush()
			starts = append(starts, i+1)
			continue
		}
		if strings.HasPrefix(l, ">") && strings.HasPrefix(strings.TrimLeft(l, ">"), "From ") {
			l = l[1:]
		}
		cur = append(cur, l)
	}
	flush()
	if len(starts) > len(out) {
		starts = starts[:len(out)]
	}
	return out, starts
}

var headerLineRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*:[ \t]`)

// readOne reads one message: with headers when it starts with them, else
// as plain text with any header lines it pastes. base is the number of
// lines of the file before it, so that line numbers are the file's.
func readOne(data []byte, base int) *Message {
	m := &Message{}
	defer func() {
		if m.Flattened {
			return
		}
		for i := range m.Lines {
			m.Lines[i].N += base
		}
	}()
	if headerLineRE.Match(data) {
		if msg, err := netmail.ReadMessage(bytes.NewReader(data)); err == nil && mailHeader(msg.Header) {
			fillHeaders(m, func(k string) string { return msg.Header.Get(k) })
			body, _ := io.ReadAll(msg.Body)
			// The body starts after the header and its blank line; a
			// decoded body (quoted-printable, MIME) is counted as decoded.
			if i := bytes.Index(data, []byte("\n\n")); i >= 0 {
				base += bytes.Count(data[:i], []byte("\n")) + 2
			}
			text := decodeBody(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), body)
			m.setBody(text)
			return m
		}
	}
	m.setBody(string(data))
	pastedHeaders(m)
	return m
}

// mailHeader tells whether h is a mail's header, not a paste that starts
// with "Re: [PATCH ...]".
func mailHeader(h netmail.Header) bool {
	for _, k := range []string{"From", "Subject", "Message-Id", "Date", "Received"} {
		if h.Get(k) != "" {
			return true
		}
	}
	return false
}

func fillHeaders(m *Message, get func(string) string) {
	dec := new(mime.WordDecoder)
	word := func(s string) string {
		if d, err := dec.DecodeHeader(s); err == nil {
			return strings.Join(strings.Fields(d), " ")
		}
		return strings.Join(strings.Fields(s), " ")
	}
	m.ID = strings.TrimSpace(get("Message-Id"))
	m.Subject = word(get("Subject"))
	m.From = word(get("From"))
	m.Date = strings.TrimSpace(get("Date"))
	m.InReplyTo = firstID(get("In-Reply-To"))
	m.References = msgIDRE.FindAllString(get("References"), -1)
}

var msgIDRE = regexp.MustCompile(`<[^<>\s]+@[^<>\s]+>`)

func firstID(s string) string { return msgIDRE.FindString(s) }

// decodeBody decodes a body by its MIME type and transfer encoding: the
// text/plain parts of a multipart, quoted-printable and base64 undone.
func decodeBody(ctype, cte string, body []byte) string {
	body = decodeCTE(cte, body)
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return string(body)
	}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var parts []string
	for {
		p, err := r.NextRawPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		pt := p.Header.Get("Content-Type")
		if pt == "" {
			pt = "text/plain"
		}
		sub, _, _ := mime.ParseMediaType(pt)
		switch {
		case strings.HasPrefix(sub, "multipart/"):
			parts = append(parts, decodeBody(pt, p.Header.Get("Content-Transfer-Encoding"), b))
		case sub == "text/plain" || sub == "text/x-log" || sub == "text/x-diff":
			parts = append(parts, string(decodeCTE(p.Header.Get("Content-Transfer-Encoding"), b)))
		}
	}
	return strings.Join(parts, "\n")
}

func decodeCTE(cte string, body []byte) []byte {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "quoted-printable":
		if b, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body))); err == nil || len(b) > 0 {
			return b
		}
	case "base64":
		clean := strings.Join(strings.Fields(string(body)), "")
		if b, err := base64.StdEncoding.DecodeString(clean); err == nil {
			return b
		}
	}
	return body
}

// pastedHeaders finds the headers a web archive pastes above the body
// ("Message-ID: <...>", "Subject: ..."), on lines of their own or run
// into one line, and drops a block of them from the top of the body.
func pastedHeaders(m *Message) {
	var text strings.Builder
	top := len(m.Lines)
	if top > 60 {
		top = 60
	}
	end := -1
	for i := 0; i < top; i++ {
		l := m.Lines[i].Raw
		text.WriteString(l + "\n")
		if headerLineRE.MatchString(l) && hasKnownHeader(l) {
			// The header block runs to the next blank line.
			for j := i + 1; j < len(m.Lines) && strings.TrimSpace(m.Lines[j].Raw) != ""; j++ {
				text.WriteString(m.Lines[j].Raw + "\n")
				i = j
			}
			end = i
		}
	}
	get := func(k string) string {
		re := regexp.MustCompile(`(?im)(?:^|\s)` + k + `:[ \t]*((?:.*)(?:\n[ \t]+.*)*)`)
		v := re.FindStringSubmatch(text.String())
		if v == nil {
			return ""
		}
		// A flattened header runs into the next one.
		s := strings.Join(strings.Fields(v[1]), " ")
		if loc := nextHeaderRE.FindStringIndex(s); loc != nil {
			s = s[:loc[0]]
		}
		return s
	}
	fillHeaders(m, get)
	m.ID = firstID(m.ID)
	if d := get("Date"); d != "" {
		m.Date = strings.TrimSpace(strings.SplitN(d, "[", 2)[0])
	}
	if end >= 0 && !m.Flattened {
		m.Lines = m.Lines[end+1:]
	}
}

var knownHeaders = []string{"message-id", "subject", "from", "date", "in-reply-to", "references"}

func hasKnownHeader(l string) bool {
	k := strings.ToLower(strings.SplitN(l, ":", 2)[0])
	for _, h := range knownHeaders {
		if k == h {
			return true
		}
	}
	return false
}

var nextHeaderRE = regexp.MustCompile(`\s(?:To|Cc|CC|From|Date|Subject|References|In-Reply-To|Message-I[dD]|Content-[A-Za-z-]+|MIME-Version|User-Agent|Precedence|List-[A-Za-z-]+|X-[A-Za-z-]+|Received|Authentication-Results|ARC-[A-Za-z-]+|DKIM-Signature):(?:\s|$)`)

// quoteRE matches the quote marks at the start of a line: ">", "> >",
// ">>" with optional spaces between and one after.
var quoteRE = regexp.MustCompile(`^((?:[ \t]{0,3}>)+)[ \t]?`)

// setBody splits text into lines with their quote levels, restoring the
// line breaks of a flattened mail at its quote marks first.
func (m *Message) setBody(text string) {
	raw := strings.Split(strings.TrimRight(text, "\n"), "\n")
	flat := false
	for _, l := range raw {
		if len(l) > 400 && len(unflatten(l)) >= 4 {
			flat = true
		}
	}
	if flat {
		m.Flattened = true
		var out []string
		for _, l := range raw {
			out = append(out, unflatten(l)...)
		}
		raw = out
	}
	m.Lines = m.Lines[:0]
	for i, l := range raw {
		raw := strings.TrimRight(l, " \t")
		l = strings.TrimRight(plainSpaces(raw), " \t")
		ln := Line{N: i + 1, Raw: raw, Text: l}
		if q := quoteRE.FindString(l); q != "" {
			ln.Level = strings.Count(q, ">")
			ln.Text = l[len(q):]
		}
		m.Lines = append(m.Lines, ln)
	}
}

// unflatten splits a line at every quote mark it holds: each run of ">"
// between spaces (or at the start or end) starts a line of its own. A
// mail flattened this way writes its levels as ">>" runs, so "> >" are
// two lines of level one.
func unflatten(l string) []string {
	var out []string
	start := 0
	for i := 0; i < len(l); {
		if l[i] != '>' || i > 0 && l[i-1] != ' ' && l[i-1] != '\t' {
			i++
			continue
		}
		j := i
		for j < len(l) && l[j] == '>' {
			j++
		}
		if j < len(l) && l[j] != ' ' && l[j] != '\t' {
			i = j
			continue
		}
		if i > start {
			out = append(out, strings.TrimRight(l[start:i], " \t"))
		}
		start = i
		i = j
	}
	out = append(out, l[start:])
	if len(out) > 1 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	return out
}

// Levels returns the quote levels m's lines use, lowest first.
func (m *Message) Levels() []int {
	seen := map[int]bool{}
	var out []int
	for _, l := range m.Lines {
		if !seen[l.Level] {
			seen[l.Level] = true
			out = append(out, l.Level)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
