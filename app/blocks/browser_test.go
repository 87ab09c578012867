package blocks_test

// The rendered documents in headless Chromium, through the DevTools
// protocol (chromedp), with the dashboard's browser flags for this
// machine (web/dashboard/browser_harness_test.go): one browser for the
// test binary, a fresh browser context per page.

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/heraldmail/herald/app/blocks"
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

func startBrowser() {
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
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
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter"),
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
	switch {
	case browser.skip != "" && os.Getenv("HERALD_REQUIRE_BROWSER") == "1":
		t.Fatal(browser.skip)
	case browser.skip != "":
		t.Skip(browser.skip)
	case browser.err != nil:
		t.Fatal(browser.err)
	}
}

// layout is what a page measures once it and its images have loaded.
type layout struct {
	ScrollWidth int   `json:"scrollWidth"`
	Container   int   `json:"container"`  // the 600-pixel table's width
	ColumnTops  []int `json:"columnTops"` // the top of each column of the last row of three
	Images      int   `json:"images"`     // images loaded with a width
}

const measure = `(() => {
	const cols = [...document.querySelectorAll('.herald-col')];
	const rows = [...new Set(cols.map((c) => c.parentElement))].filter((r) => r.querySelectorAll(':scope > .herald-col').length === 3);
	const last = rows.length ? [...rows[rows.length - 1].querySelectorAll(':scope > .herald-col')] : [];
	return {
		scrollWidth: document.documentElement.scrollWidth,
		container: Math.round(document.querySelector('table[style*="max-width:600px"]').getBoundingClientRect().width),
		columnTops: last.map((c) => Math.round(c.getBoundingClientRect().top)),
		images: [...document.images].filter((i) => i.complete && i.naturalWidth > 0).length,
	};
})()`

// newTab opens a tab in a browser context of its own.
func newTab(t *testing.T) context.Context {
	t.Helper()
	needBrowser(t)
	ctx, cancel := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// The first run opens the tab; runs under a shorter context after it
	// must not be the ones that own it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// measurePage opens a page at a viewport width and measures it when it
// and its images have loaded.
func measurePage(t *testing.T, tab context.Context, url string, width int64) layout {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	ready := `document.readyState === 'complete' && [...document.images].every((i) => i.complete)`
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](ready, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("waiting for %s to load: %v", url, err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[layout](measure))
	if err != nil {
		t.Fatalf("measure %s: %v", url, err)
	}
	return got
}

// styleBlock matches the <style> element that clients without support for
// it (Gmail's app for other accounts, some webmails) drop.
var styleBlock = regexp.MustCompile(`(?s)<style>.*?</style>`)

// pictures serves a 1200x800 PNG for every upload, wider than any column.
func pictures(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 1200, 800))
	for y := 0; y < 800; y++ {
		for x := 0; x < 1200; x++ {
			img.Set(x, y, color.RGBA{uint8(x / 5), uint8(y / 4), 160, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// stressDocument has what tends to widen an email on a phone: words and
// URLs longer than the screen in every kind of text, images in three
// columns, a long button.
func stressDocument(src string) blocks.Document {
	long := strings.Repeat("Supercalifragilistic", 8)
	url := "https://example.com/" + strings.Repeat("a-very-long-path-segment/", 8)
	return blocks.Document{Rows: []blocks.Row{
		{Columns: []blocks.Column{{Blocks: []blocks.Block{
			{Type: blocks.Heading, Text: long, Level: 1},
			{Type: blocks.Text, HTML: "<p>" + long + " <a href=\"" + url + "\">" + url + "</a></p><p><b><i>" + long + "</i></b></p>"},
			{Type: blocks.Button, Text: long, Href: url},
		}}}},
		{Columns: []blocks.Column{
			{Blocks: []blocks.Block{{Type: blocks.Image, Src: src, Alt: long}, {Type: blocks.Heading, Text: long, Level: 3}}},
			{Blocks: []blocks.Block{{Type: blocks.Image, Src: src, Alt: "x"}, {Type: blocks.Button, Text: long, Href: url}}},
			{Blocks: []blocks.Block{{Type: blocks.Text, HTML: url}, {Type: blocks.Divider}, {Type: blocks.Spacer, Height: 120}}},
		}},
		{Columns: []blocks.Column{{}, {Blocks: []blocks.Block{{Type: blocks.Footer, Text: long + "\n" + url}}}}},
	}}
}

// Each rendered document shows at 375 pixels without horizontal scrolling,
// with its <style> and without it (the fluid-hybrid columns stack
// without the media query); at 1024 pixels the container is 600 pixels
// wide and a row's columns sit side by side.
func TestBrowser_RenderedBlocksFitPhones(t *testing.T) {
	tab := newTab(t)
	picture := pictures(t)
	docs := map[string]string{}
	mux := http.NewServeMux()
	mux.HandleFunc("/uploads/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(picture)
	})
	mux.HandleFunc("/doc/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(docs[strings.TrimPrefix(r.URL.Path, "/doc/")]))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	src := ts.URL + "/uploads/0123456789abcdef0123456789abcdef.png"
	names, list := standardDocuments(src)
	names, list = append(names, "stress"), append(list, stressDocument(src))
	for i, d := range list {
		mustValid(t, d)
		html := blocks.Render(d, blocks.Options{Title: "Spring news"})
		docs[names[i]] = html
		docs[names[i]+"-unstyled"] = styleBlock.ReplaceAllString(html, "")
	}
	for _, name := range names {
		for _, variant := range []string{name, name + "-unstyled"} {
			got := measurePage(t, tab, ts.URL+"/doc/"+variant, 375)
			if got.ScrollWidth > 375 {
				t.Errorf("%s at 375 px: scrollWidth %d, want at most 375", variant, got.ScrollWidth)
			}
			if images := strings.Count(docs[variant], "<img "); got.Images != images {
				t.Errorf("%s: %d of %d images loaded", variant, got.Images, images)
			}
		}
		if name != "all" && name != "stress" {
			continue
		}
		wide := measurePage(t, tab, ts.URL+"/doc/"+name, 1024)
		if wide.Container != 600 || wide.ScrollWidth > 1024 {
			t.Errorf("%s at 1024 px: container %d (want 600), scrollWidth %d", name, wide.Container, wide.ScrollWidth)
		}
		if len(wide.ColumnTops) != 3 || wide.ColumnTops[0] != wide.ColumnTops[1] || wide.ColumnTops[1] != wide.ColumnTops[2] {
			t.Errorf("%s at 1024 px: the three columns' tops are %v, want one line", name, wide.ColumnTops)
		}
		narrow := measurePage(t, tab, ts.URL+"/doc/"+name, 375)
		if len(narrow.ColumnTops) != 3 || narrow.ColumnTops[0] >= narrow.ColumnTops[1] || narrow.ColumnTops[1] >= narrow.ColumnTops[2] {
			t.Errorf("%s at 375 px: the three columns' tops are %v, want them stacked", name, narrow.ColumnTops)
		}
	}
}
