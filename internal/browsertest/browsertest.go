// Package browsertest drives one headless Chromium per test binary for the
// tests of kdelta's pages (the HTML reports and kdelta serve): it loads a
// page in a fresh tab, records what a person would notice going wrong —
// console errors, uncaught exceptions, requests that leave the page's
// origin, dialogs — reads values back from the page, and writes
// screenshots. Only tests import it.
package browsertest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/kdelta/kdelta/internal/testenv"
)

// ArtefactsEnv names the directory screenshots go under; unset, they go
// under the system's temporary directory.
const ArtefactsEnv = "KDELTA_ARTEFACTS"

var (
	once     sync.Once
	browser  context.Context
	stop     func()
	startErr error
	userDir  string
)

// Main runs the tests of m and then closes the browser, if one started;
// call it from TestMain: os.Exit(browsertest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if stop != nil {
		stop()
	}
	if userDir != "" {
		os.RemoveAll(userDir)
	}
	return code
}

// start launches the one browser, with the flags that work on a closed
// network and a fresh profile.
func start() {
	path, err := exec.LookPath("chromium")
	if err != nil {
		startErr = fmt.Errorf("chromium not on PATH (Debian package chromium): %w", err)
		return
	}
	if userDir, err = os.MkdirTemp("", "kdelta-chromium-"); err != nil {
		startErr = err
		return
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.UserDataDir(userDir),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1100, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	// The first Do starts the browser.
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		startErr = fmt.Errorf("starting chromium: %w", err)
		return
	}
	browser = bctx
	stop = func() { cancelBrowser(); cancelAlloc() }
}

// A Page is one loaded page and what happened while it loaded and ran.
type Page struct {
	t   testing.TB
	ctx context.Context
	end func()

	mu       sync.Mutex
	console  []string
	requests []string
	dialogs  []string
}

// Open loads url in a new tab of the test binary's browser and waits until
// the page's script has drawn its charts (body[data-charts]); it skips the
// test (fails under CI) when Chromium is missing.
func Open(t testing.TB, u string) *Page {
	t.Helper()
	once.Do(start)
	if startErr != nil {
		testenv.Skip(t, startErr)
	}
	ctx, cancel := chromedp.NewContext(browser)
	ctx, cancelTime := context.WithTimeout(ctx, 30*time.Second)
	p := &Page{t: t, ctx: ctx, end: func() { cancelTime(); cancel() }}
	t.Cleanup(p.end)
	err := chromedp.Listen(ctx, p.listen)
	if err == nil {
		_, err = chromedp.Call(ctx, network.Enable, network.EnableParams{})
	}
	if err == nil {
		_, err = chromedp.Call(ctx, log.Enable, cdp.Empty{})
	}
	if err == nil {
		err = chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS("body[data-charts]")))
	}
	if err != nil {
		t.Fatalf("loading %s: %v (console: %q)", u, err, p.Console())
	}
	return p
}

// listen records the events that tell of trouble and dismisses dialogs,
// which would block the page.
func (p *Page) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, strings.Trim(string(a.Value), `"`)+a.Description)
			}
			p.console = append(p.console, string(ev.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		p.console = append(p.console, "exception: "+msg)
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			p.console = append(p.console, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, ev.Request.URL)
	case *page.EventJavascriptDialogOpening:
		p.dialogs = append(p.dialogs, string(ev.Type)+": "+ev.Message)
		// A command may not run inside the listener.
		go chromedp.Call(p.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
	}
}

// Console returns the console errors, warnings and uncaught exceptions.
func (p *Page) Console() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.console...)
}

// Requests returns the URL of every request the tab made.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Dialogs returns the alerts, confirms and prompts the page opened.
func (p *Page) Dialogs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.dialogs...)
}

// CheckClean fails the test for every console error, dialog and request
// outside origin (scheme://host:port; for a file, the file's own URL).
func (p *Page) CheckClean(origin string) {
	p.t.Helper()
	for _, c := range p.Console() {
		p.t.Errorf("console: %s", c)
	}
	for _, d := range p.Dialogs() {
		p.t.Errorf("dialog opened: %s", d)
	}
	for _, r := range p.Requests() {
		if !SameOrigin(r, origin) {
			p.t.Errorf("request outside %s: %s", origin, r)
		}
	}
}

// SameOrigin tells whether the request u stays in origin: an http origin's
// scheme, host and port, or a file URL itself.
func SameOrigin(u, origin string) bool {
	if strings.HasPrefix(origin, "file://") {
		return u == origin
	}
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(origin)
	return err1 == nil && err2 == nil && a.Scheme == b.Scheme && a.Host == b.Host
}

// Eval evaluates the JavaScript expression js in p's page; its value is
// decoded into a T.
func Eval[T any](p *Page, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// Type types text into the element sel (a CSS selector) as keys.
func (p *Page) Type(sel, text string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.SendKeys(chromedp.CSS(sel), text)); err != nil {
		p.t.Fatalf("typing into %s: %v", sel, err)
	}
}

// Click clicks the element sel (a CSS selector) on the page.
func (p *Page) Click(sel string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		p.t.Fatalf("clicking %s: %v", sel, err)
	}
}

// Follow clicks the element sel, a link or a submit button, and waits
// until the page it leads to has drawn its charts.
func (p *Page) Follow(sel string) {
	p.t.Helper()
	err := chromedp.Do(p.ctx, chromedp.Evaluate[chromedp.Void]("window.kdeltaLeaving = true; undefined"), chromedp.Click(chromedp.CSS(sel)))
	// Until the next page is there, an evaluation may fail as the old one
	// goes away.
	for end := time.Now().Add(15 * time.Second); err == nil; time.Sleep(20 * time.Millisecond) {
		arrived, e := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`window.kdeltaLeaving === undefined && !!document.body && document.body.dataset.charts !== undefined`))
		if e == nil && arrived {
			break
		}
		if time.Now().After(end) {
			err = fmt.Errorf("no page after 15 s (last: %v)", e)
		}
	}
	if err != nil {
		p.t.Fatalf("following %s: %v (console: %q)", sel, err, p.Console())
	}
}

// Screenshot writes a full-page PNG named name.png under the artefact
// directory and logs its path.
func (p *Page) Screenshot(name string) {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := ArtefactDir(p.t)
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
}

// ArtefactDir is where this test binary's screenshots go:
// $KDELTA_ARTEFACTS/screenshots, else kdelta-screenshots in the system's
// temporary directory; kept after the test so that a person can look.
func ArtefactDir(t testing.TB) string {
	t.Helper()
	base := os.Getenv(ArtefactsEnv)
	if base == "" {
		base = os.TempDir()
		base = filepath.Join(base, "kdelta-screenshots")
	} else {
		base = filepath.Join(base, "screenshots")
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	return base
}
