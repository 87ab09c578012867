package dashboard_test

// The browser tests drive Debian's chromium through the DevTools protocol
// (chromedp) against a whole Herald on loopback: a migrated SQLite in a
// temp dir, the real HTTP stack, the test DNS server and SMTP sink. One
// browser serves the whole test binary; each test gets a fresh browser
// context (its own cookies and storage) and fails on any JavaScript
// exception, console.error, failed request or CSP violation.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

var browser struct {
	once    sync.Once
	ctx     context.Context // a chromedp context that has started the browser
	err     error
	skip    string
	cleanup []func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(browser.cleanup) - 1; i >= 0; i-- {
		browser.cleanup[i]()
	}
	os.Exit(code)
}

func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startBrowser starts the shared browser on first use.
func startBrowser() {
	path := chromiumPath()
	if path == "" {
		browser.skip = "chromium is not installed (apt-get install chromium); set HERALD_REQUIRE_BROWSER=1 to make this a failure"
		return
	}
	dir, err := os.MkdirTemp("", "herald-chromium-")
	if err != nil {
		browser.err = err
		return
	}
	browser.cleanup = append(browser.cleanup, func() { os.RemoveAll(dir) })
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		// Sandboxed frames stay in the page's process, so that DevTools reads
		// the template preview through the page's own session.
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,IsolateSandboxedIframes"),
		chromedp.Flag("password-store", "basic"),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	browser.cleanup = append(browser.cleanup, cancelAlloc, cancel)
	if err := chromedp.Do(ctx); err != nil {
		browser.err = fmt.Errorf("start %s: %w", path, err)
		return
	}
	browser.ctx = ctx
}

// needBrowser skips (or, with HERALD_REQUIRE_BROWSER=1, fails) a test when
// no browser can run.
func needBrowser(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	browser.once.Do(startBrowser)
	require := os.Getenv("HERALD_REQUIRE_BROWSER") == "1"
	switch {
	case browser.skip != "" && require:
		t.Fatal(browser.skip)
	case browser.skip != "":
		t.Skip(browser.skip)
	case browser.err != nil:
		t.Fatal(browser.err)
	}
}

// tab is one browser context and tab, watching for problems.
type tab struct {
	t        *testing.T
	ctx      context.Context
	base     string
	mu       sync.Mutex
	problems []string
}

func newTab(t *testing.T, base string) *tab {
	t.Helper()
	needBrowser(t)
	ctx, cancel := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, ctx: ctx, base: base}
	console := chromedp.Console(ctx)
	failed := chromedp.Events(ctx, network.LoadingFailed)
	responses := chromedp.Events(ctx, network.ResponseReceived)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				tb.problem("console %s (%s) at %s:%d: %s", m.Type, m.Source, m.URL, m.Line+1, m.Text)
			}
		}
	}()
	go func() {
		for ev, err := range failed {
			if err != nil {
				return
			}
			// A request the page itself dropped (a navigation away) is not a failure.
			if ev.Canceled {
				continue
			}
			tb.problem("request failed: %s %s %s", ev.Type, ev.ErrorText, ev.BlockedReason)
		}
	}()
	go func() {
		for ev, err := range responses {
			if err != nil {
				return
			}
			if ev.Response.Status >= 400 {
				tb.problem("HTTP %d for %s", ev.Response.Status, ev.Response.URL)
			}
			if !strings.HasPrefix(ev.Response.URL, base) && !strings.HasPrefix(ev.Response.URL, "data:") &&
				!strings.HasPrefix(ev.Response.URL, "about:") {
				tb.problem("request to another origin: %s", ev.Response.URL)
			}
		}
	}()
	t.Cleanup(tb.check)
	return tb
}

func (tb *tab) problem(format string, args ...any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.problems = append(tb.problems, fmt.Sprintf(format, args...))
}

// settle lets the last asynchronous events arrive, and returns the problems.
func (tb *tab) settle() []string {
	_ = tb.run(chromedp.Sleep(150 * time.Millisecond))
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.problems...)
}

func (tb *tab) check() {
	problems := tb.settle()
	for _, p := range problems {
		tb.t.Errorf("browser: %s", p)
	}
}

// run runs actions with a bound, so that a missing element fails the test
// instead of hanging it.
func (tb *tab) run(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := tb.run(actions...); err != nil {
		tb.fail("%v", err)
	}
}

// fail stops the test with the page's text and problems, for diagnosis.
func (tb *tab) fail(format string, args ...any) {
	tb.t.Helper()
	text, _ := eval[string](tb, `document.body ? document.body.innerText.slice(0, 3000) : ''`)
	loc, _ := eval[string](tb, `location.href`)
	tb.t.Fatalf("%s\nat %s\npage text:\n%s", fmt.Sprintf(format, args...), loc, text)
}

func eval[T any](tb *tab, js string) (T, error) {
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js))
}

// chromeRun runs one action with a value, bounded.
func chromeRun[T any](tb *tab, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	return chromedp.Run(ctx, a)
}

func (tb *tab) eval(js string) string {
	tb.t.Helper()
	v, err := eval[string](tb, js)
	if err != nil {
		tb.fail("eval %s: %v", js, err)
	}
	return v
}

func (tb *tab) open(path string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(tb.base + path))
}

// waitJS waits until a JavaScript expression is truthy.
func (tb *tab) waitJS(expr string, timeout time.Duration) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, timeout+5*time.Second)
	defer cancel()
	// An element not there yet is "not yet", not an error.
	guarded := `(() => { try { return !!(` + expr + `) } catch (e) { return false } })()`
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](guarded, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(timeout))); err != nil {
		tb.fail("waiting for %s: %v", expr, err)
	}
}

// waitText waits until the page shows a text.
func (tb *tab) waitText(text string) {
	tb.t.Helper()
	tb.waitJS(`document.body && document.body.innerText.includes(`+strconv.Quote(text)+`)`, 15*time.Second)
}

// field finds an input by its label's text.
func field(label string) string {
	return `//*[@id=(//label[normalize-space()=` + xq(label) + `]/@for)]`
}

// button finds a button or link by its text.
func button(text string) string {
	return `//*[(self::button or self::a) and (normalize-space()=` + xq(text) + ` or @aria-label=` + xq(text) + `)]`
}

func xq(s string) string {
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return `'` + s + `'`
}

func (tb *tab) click(xpath string) {
	tb.t.Helper()
	tb.do(chromedp.WaitVisible(xpath), chromedp.Click(xpath))
}

func (tb *tab) typeInto(label, text string) {
	tb.t.Helper()
	tb.typeAt(field(label), text)
}

// typeAt empties an input as a user selecting its text and deleting it
// would, then types the text with key events.
func (tb *tab) typeAt(xpath, text string) {
	tb.t.Helper()
	tb.do(chromedp.WaitVisible(xpath))
	js := `(() => { const el = document.evaluate(` + strconv.Quote(xpath) + `, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
		if (!el) return 'missing';
		el.focus(); el.value = ''; el.dispatchEvent(new Event('input', { bubbles: true })); return 'ok'; })()`
	if got := tb.eval(js); got != "ok" {
		tb.fail("type into %s: %s", xpath, got)
	}
	tb.do(chromedp.SendKeys(xpath, text))
}

// choose picks an option of a select found by its label, as a user does.
func (tb *tab) choose(label, value string) {
	tb.t.Helper()
	tb.chooseAt(field(label), value)
}

func (tb *tab) chooseAt(xpath, value string) {
	tb.t.Helper()
	tb.do(chromedp.WaitVisible(xpath))
	js := `(() => { const el = document.evaluate(` + strconv.Quote(xpath) + `, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
		if (!el) return 'missing';
		const opt = [...el.options].find((o) => o.value === ` + strconv.Quote(value) + ` || o.text === ` + strconv.Quote(value) + `);
		if (!opt) return 'no option';
		el.focus(); el.value = opt.value; el.dispatchEvent(new Event('change', { bubbles: true })); return 'ok'; })()`
	if got := tb.eval(js); got != "ok" {
		tb.fail("choose %q in %s: %s", value, xpath, got)
	}
}

// freePort reserves a loopback address for a server made before it knows
// its own URL (the app needs its base URL for the CSRF Origin check).
func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// serve starts a test server on a listener.
func serve(t *testing.T, ln net.Listener, h http.Handler) *httptest.Server {
	t.Helper()
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}
