//go:build unix

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/proctest"
)

// screenshotDir is where the browser tests save screenshots of the main
// pages (a test artifact, ignored by git); UI_SCREENSHOT_DIR overrides it.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("UI_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".artifacts", "ui-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// chromiumPath finds Debian's chromium (or CHROMIUM_BIN). Without one the
// browser tests skip on a developer's machine and fail under CI, where
// .ci/run installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM_BIN"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH: the browser tests need it under CI (apt-get install chromium; .ci/run does)")
	}
	t.Skip("no chromium on PATH (apt-get install chromium); the browser tests run under CI")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile, in a process
// group the test owns, and returns a tab's context.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) { proctest.Own(t, cmd) }),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser now
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// tab drives one browser tab against a server.
type tab struct {
	t    *testing.T
	ctx  context.Context
	base string
}

// open navigates to path and returns the HTTP status of the page.
func (b *tab) open(path string) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(b.base+path))
	if err != nil {
		b.t.Fatalf("open %s: %v", path, err)
	}
	return resp.Status
}

// do runs steps, failing the test on error.
func (b *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

// click clicks the element sel and waits for the page it leads to.
func (b *tab) click(sel string) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("click %s: %v", sel, err)
	}
	return resp.Status
}

// submit types text into the field sel, presses Enter and waits for the
// page the form leads to.
func (b *tab) submit(sel, text string) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.SendKeys(chromedp.CSS(sel), text+"\r"))
	if err != nil {
		b.t.Fatalf("submit %s: %v", sel, err)
	}
	return resp.Status
}

// text is the visible text of the page's main element.
func (b *tab) text() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

// eval evaluates a JavaScript expression to a string.
func (b *tab) eval(expr string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

// location is the tab's URL without the server's base.
func (b *tab) location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	return strings.TrimPrefix(loc, b.base)
}

// screenshot saves the whole page as name.png in the artifact folder.
func (b *tab) screenshot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(screenshotDir(b.t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", path)
}

// signIn fills the sign-in form with token and submits it.
func (b *tab) signIn(token string) {
	b.t.Helper()
	if st := b.open("/ui/"); st != 200 || b.location() != "/ui/login" {
		b.t.Fatalf("signed out, /ui/ ends at %s (%d), want the sign-in page", b.location(), st)
	}
	b.do(chromedp.SendKeys(chromedp.ID("token"), token))
	if st := b.click("button[type=submit]"); st != 200 {
		b.t.Fatalf("sign in: status %d", st)
	}
	if loc := b.location(); loc != "/ui/" {
		b.t.Fatalf("after sign in the tab is at %s:\n%s", loc, b.text())
	}
}

// dialogs counts JavaScript dialogs (alert, confirm, prompt) the tab
// opens, dismissing each: entry content must never open one.
func (b *tab) dialogs() *atomic.Int32 {
	var n atomic.Int32
	events := chromedp.Events(b.ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range events {
			if err != nil {
				return
			}
			n.Add(1)
			_, _ = chromedp.Call(b.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return &n
}

// darkMode switches the tab's prefers-color-scheme.
func (b *tab) darkMode(on bool) {
	b.t.Helper()
	v := "light"
	if on {
		v = "dark"
	}
	_, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
	if err != nil {
		b.t.Fatal(err)
	}
}

// authServer is a server with authentication on, its data directory and
// admin token.
type authServer struct {
	*serverProc
	admin string
	// storeFlags name the server's Postgres store (none: the embedded one).
	storeFlags []string
}

// startAuthServer starts teammem-server with authentication (its own
// signing key, admin.token written at first start), without a rate limit
// unless extra (more flags) sets one.
func startAuthServer(t testing.TB, extra ...string) *authServer {
	t.Helper()
	dir := t.TempDir()
	s := launchServer(t, dir, append([]string{"--addr", "127.0.0.1:0", "--rate-limit", "0"}, extra...)...)
	tok, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	a := &authServer{serverProc: s, admin: strings.TrimSpace(string(tok))}
	if i := slices.Index(extra, "--database-url"); i >= 0 && i+1 < len(extra) {
		a.storeFlags = extra[i : i+2]
	}
	if a.api, err = client.New(client.Options{BaseURL: s.url(), Token: a.admin}); err != nil {
		t.Fatal(err)
	}
	return a
}

// token issues a token with the real `teammem-server token create`.
func (a *authServer) token(t testing.TB, subject string, grants ...string) string {
	t.Helper()
	args := append([]string{"token", "create", "--data-dir", a.dataDir, "--subject", subject, "--ttl", "1h"}, a.storeFlags...)
	for _, g := range grants {
		args = append(args, "--grant", g)
	}
	cmd := proctest.Command(t, serverBin, args...)
	cmd.Env = cleanEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("token create: %v", err)
	}
	return strings.TrimSpace(string(out))
}
