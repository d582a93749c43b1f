package web_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/web"
)

// TestCompareLabelSessions: serve's comparison takes a label query that
// selects several stored sets as several sessions of its side, as kdelta
// compare does (issue 34, scope 3): the three sets of 6.15 and of 6.16
// compare as 8 runs × 3 sessions each with the noise of those six
// sessions, and the page's permalink names the queries again.
func TestCompareLabelSessions(t *testing.T) {
	st, _ := filled(t)
	srv := httptest.NewServer(web.New(st, web.Options{}))
	defer srv.Close()
	code, body := get(t, srv.URL+"/compare?a="+url.QueryEscape("kernel=6.15")+"&b="+url.QueryEscape("kernel=6.16"))
	flat := strings.Join(strings.Fields(body), " ")
	if code != 200 || !strings.Contains(flat, "(8 runs × 3 sessions each, session noise ±") || !strings.Contains(flat, "from these 6 sessions") {
		t.Fatalf("/compare of two label queries: %d\n%s", code, body)
	}
	if !strings.Contains(body, "a=kernel%3D6.15&amp;b=kernel%3D6.16") {
		t.Errorf("the permalink does not name the queries:\n%s", body)
	}
}
