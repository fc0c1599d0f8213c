// Package signin signs the agent in to a teammem server through the
// person's browser: the server's OAuth 2.1 authorization server (RFC 8414
// discovery, dynamic registration, PKCE S256), the code coming back to a
// loopback redirect URI (RFC 8252), or, on a machine without a browser,
// through the device authorization grant (RFC 8628): the person enters a
// code on the web UI of any browser while the agent polls. It keeps the refresh token in a file
// of mode 0600 and renews the access token from it silently, one process
// at a time (refresh tokens rotate: two processes refreshing with one
// token would look like a replay and end the sign-in).
package signin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Options configure a login.
type Options struct {
	Server string // the server's base URL
	// Open opens the authorization URL in the person's browser.
	Open func(authURL string) error
	// ClientName names the agent on the consent page and "Your sessions".
	ClientName string
	HTTPClient *http.Client
}

// metadata is what the agent reads of the server's RFC 8414 metadata.
type metadata struct {
	Issuer        string `json:"issuer"`
	Authorize     string `json:"authorization_endpoint"`
	Token         string `json:"token_endpoint"`
	Registration  string `json:"registration_endpoint"`
	Device        string `json:"device_authorization_endpoint"`
	IssInResponse bool   `json:"authorization_response_iss_parameter_supported"`
}

// discover reads the metadata of the authorization server at server, with
// hc (nil: one with a 30 s timeout, which it returns).
func discover(ctx context.Context, hc *http.Client, server string) (*http.Client, string, metadata, error) {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	base := strings.TrimRight(server, "/")
	var md metadata
	if err := getJSON(ctx, hc, base+"/.well-known/oauth-authorization-server", &md); err != nil {
		return hc, base, md, fmt.Errorf("the server offers no sign-in (%v): log in with a token on stdin", err)
	}
	return hc, base, md, nil
}

// Login runs the browser sign-in and returns the tokens to keep.
func Login(ctx context.Context, o Options) (Tokens, error) {
	hc, base, md, err := discover(ctx, o.HTTPClient, o.Server)
	if err != nil {
		return Tokens{}, err
	}
	o.HTTPClient = hc
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Tokens{}, fmt.Errorf("listen for the browser's answer: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	clientID, err := register(ctx, o.HTTPClient, md.Registration, o.ClientName, redirect)
	if err != nil {
		return Tokens{}, err
	}
	verifier, state := random(48), random(24)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "state": {state},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "resource": {base}}
	answers := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "teammem-agent: you can close this tab and go back to the terminal.\n")
		select {
		case answers <- r.URL.Query():
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	if err := o.Open(md.Authorize + "?" + q.Encode()); err != nil {
		return Tokens{}, err
	}
	var a url.Values
	select {
	case a = <-answers:
	case <-ctx.Done():
		return Tokens{}, fmt.Errorf("waiting for the browser: %w", ctx.Err())
	}
	switch {
	case a.Get("state") != state:
		return Tokens{}, errors.New("the browser's answer is not this login's (state differs)")
	case md.IssInResponse && a.Get("iss") != md.Issuer:
		return Tokens{}, fmt.Errorf("the browser's answer comes from %q, not the server's issuer %q", a.Get("iss"), md.Issuer)
	case a.Get("error") != "":
		return Tokens{}, fmt.Errorf("the sign-in was refused: %s %s", a.Get("error"), a.Get("error_description"))
	}
	t := Tokens{Server: base, ClientID: clientID, TokenEndpoint: md.Token}
	err = t.grant(ctx, o.HTTPClient, url.Values{"grant_type": {"authorization_code"}, "code": {a.Get("code")},
		"client_id": {clientID}, "redirect_uri": {redirect}, "code_verifier": {verifier}})
	return t, err
}

// register registers the agent as a public client for this login's
// loopback redirect URI (RFC 7591), or, with redirect "", as a client of
// the device grant alone.
func register(ctx context.Context, hc *http.Client, endpoint, name, redirect string) (string, error) {
	desc := map[string]any{"client_name": name, "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}}
	if redirect == "" { // a client of the device grant alone
		delete(desc, "redirect_uris")
		desc["grant_types"] = []string{deviceGrantType, "refresh_token"}
	}
	body, _ := json.Marshal(desc)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("register with the server: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated || out.ClientID == "" {
		return "", fmt.Errorf("register with the server: status %d", resp.StatusCode)
	}
	return out.ClientID, nil
}

func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d", u, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(v)
}

func random(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
