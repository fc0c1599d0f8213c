package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/signin"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// consentBrowser is a person's browser signed in to the web UI with
// token: it opens an authorization URL, allows the client on the consent
// page and follows the answer to the client's loopback redirect URI.
func consentBrowser(t *testing.T, base, token string) func(string) error {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	if resp, err := hc.PostForm(base+"/ui/login", url.Values{"token": {token}}); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	return func(authURL string) error {
		u, _ := url.Parse(authURL)
		resp, err := hc.Get(base + "/ui/oauth/consent?" + u.RawQuery)
		if err != nil {
			return err
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		form := url.Values{"decision": {"allow"}}
		for _, m := range hiddenField.FindAllStringSubmatch(string(page), -1) {
			form.Set(m[1], strings.ReplaceAll(m[2], "&amp;", "&"))
		}
		resp, err = hc.PostForm(base+"/ui/oauth/consent", form) // follows the redirect to the agent
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
}

// TestLoginThroughBrowser: login without a token signs in through the
// browser (loopback redirect, PKCE), keeps the sign-in in a 0600 file and
// no token in agent.toml; pull then renews the short-lived access token
// silently (the refresh token rotates); once the person ends the session,
// the agent says to log in again.
func TestLoginThroughBrowser(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Org: "test", OAuth: true, OAuthAccessTTL: 30 * time.Second})
	admin, err := client.New(client.Options{BaseURL: s.URL, Token: s.Admin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Put(t.Context(), "acme/api", api.PutRequest{Entries: map[string]string{"deploy.md": "ship it\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	home, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"TEAMMEM_STATE_DIR": state}
	agent := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		e := &cliEnv{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""), Cwd: dir, Home: home,
			Getenv: func(k string) string { return env[k] }, OpenURL: consentBrowser(t, s.URL, s.Token("ann", "acme/*:write"))}
		code := exitCode(e, run(context.Background(), e, args))
		return code, out.String(), errOut.String()
	}
	code, out, errs := agent("login", "--server", s.URL, "--browser")
	if code != 0 || !strings.Contains(out, "signed in to "+s.URL+" through the browser as ann;") || !strings.Contains(errs, "/oauth/authorize?") {
		t.Fatalf("login: exit %d\n%s\n%s", code, out, errs)
	}
	path := filepath.Join(state, signInFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("sign-in file: %v %v; want mode 0600", fi, err)
	}
	first, _ := signin.Load(path)
	cfg, _ := os.ReadFile(filepath.Join(home, ".config", "teammem", "agent.toml"))
	if strings.Contains(string(cfg), "token") {
		t.Errorf("agent.toml holds a token after a browser sign-in:\n%s", cfg)
	}

	env["TEAMMEM_REPO"], env["TEAMMEM_DIR"] = "acme/api", dir
	if code, _, errs := agent("pull"); code != 0 {
		t.Fatalf("pull: exit %d %s", code, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "deploy.md")); string(got) != "ship it\n" {
		t.Errorf("deploy.md = %q", got)
	}
	renewed, _ := signin.Load(path)
	if renewed.RefreshToken == first.RefreshToken || renewed.AccessToken == first.AccessToken {
		t.Errorf("the access token (30 s) was not renewed, or the refresh token did not rotate")
	}

	if renewed.Subject != "ann" || time.Until(renewed.Until) < 50*time.Minute || time.Until(renewed.Until) > time.Hour {
		t.Errorf("the sign-in is %q until %v; want ann for the token's hour", renewed.Subject, renewed.Until)
	}
	if code, out, _ := agent("status"); code != 0 || !strings.Contains(out, "signed in: ann through the browser, until ") {
		t.Errorf("status: exit %d\n%s", code, out)
	}

	sessions, err := s.Store.(server.OAuthStore).OAuthSessions(t.Context(), "ann", time.Now())
	if err != nil || len(sessions) != 1 || !strings.HasPrefix(sessions[0].ClientName, "teammem-agent on ") {
		t.Fatalf("ann's sessions: %+v %v", sessions, err)
	}
	if err := s.Store.(server.OAuthStore).RevokeOAuthSession(t.Context(), "ann", sessions[0].ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := agent("pull"); code == 0 || !strings.Contains(errs, "sign-in has ended") {
		t.Errorf("pull after the session ended: exit %d %s; want a failure saying the sign-in ended", code, errs)
	}
}
