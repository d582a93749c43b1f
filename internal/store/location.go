package store

import (
	"fmt"
	"regexp"
)

// urlScheme is the start of a URL: a scheme and "://".
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// CheckLocation refuses a location that is a URL of a database kdelta
// does not open (mysql://, a misspelt postgress://), which would else be
// taken for the path of a new SQLite file named after the URL. The error
// names the scheme only: a URL may carry a password.
func CheckLocation(loc string) error {
	m := urlScheme.FindStringSubmatch(loc)
	if m == nil || IsPostgres(loc) {
		return nil
	}
	return fmt.Errorf("--store: a %s:// URL is not a store kdelta opens: give a postgres:// or postgresql:// URL, or the path of an SQLite file", m[1])
}
