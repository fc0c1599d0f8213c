package webui

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/teammem/teammem/internal/sealbox"
)

// The web UI's sessions are sealed in the browser's cookie (AES-GCM under a
// key derived from the server's secret), so every replica that shares the
// secret accepts them and the server keeps no session state. The cookie
// holds how the browser signed in; the principal is worked out again on
// every request, so an expired or revoked token ends the session at once.
// Signing out records the session's id in the store every replica shares
// (server.SessionStore), read on every page: a copy of the cookie taken
// before the sign-out is refused from then on, by every server.

// sessionCookie is the session cookie's name.
const sessionCookie = "teammem_session"

// sessionTTL bounds a session, whatever the lifetime of its token.
const sessionTTL = 12 * time.Hour

// maxSessionToken bounds the token a session may hold, so the sealed
// cookie stays under browsers' 4 KiB limit.
const maxSessionToken = 2800

// Sign-in methods a session can hold.
const (
	methodToken = "token" // a pasted teammem token, verified again on every request
	methodOIDC  = "oidc"  // the organisation's identity provider, asked again every few minutes
	methodNone  = "none"  // --insecure-no-auth: everyone is the httpkit.Anonymous admin
)

// session is what a signed-in browser holds, sealed in its cookie.
type session struct {
	Method  string `json:"m"`
	Token   string `json:"t,omitempty"`
	Nonce   string `json:"n"` // random per sign-in; the CSRF token is derived from it
	Expires int64  `json:"e"` // Unix seconds
	// An OIDC sign-in holds the identity as the provider last vouched for
	// it, when (Checked, Unix seconds), and the id of the sign-in in the
	// store (server.SignIn), which keeps the provider's refresh token.
	Subject string   `json:"s,omitempty"`
	Name    string   `json:"d,omitempty"`
	Grants  []string `json:"g,omitempty"`
	SignIn  string   `json:"i,omitempty"`
	Checked int64    `json:"c,omitempty"`
}

// errNoSession is a request without a valid session cookie.
var errNoSession = errors.New("no valid session")

// sessions seals sessions into cookies and derives their CSRF tokens.
type sessions struct {
	box     *sealbox.Box
	csrfKey []byte
	idKey   []byte
	now     func() time.Time
}

// newSessions derives the sealing and CSRF keys from secret; a nil secret
// takes a random one (sessions then end when the process does).
func newSessions(secret []byte) (*sessions, error) {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("session secret: %w", err)
		}
	}
	box, err := sealbox.New(secret, "teammem web ui session seal")
	if err != nil {
		return nil, fmt.Errorf("session seal: %w", err)
	}
	csrfKey, err := hkdf.Key(sha256.New, secret, nil, "teammem web ui csrf", 32)
	if err != nil {
		return nil, fmt.Errorf("derive csrf key: %w", err)
	}
	idKey, err := hkdf.Key(sha256.New, secret, nil, "teammem web ui session id", 32)
	if err != nil {
		return nil, fmt.Errorf("derive session id key: %w", err)
	}
	return &sessions{box: box, csrfKey: csrfKey, idKey: idKey, now: time.Now}, nil
}

// start makes a new session for method and token and sets its cookie.
func (s *sessions) start(w http.ResponseWriter, r *http.Request, method, token string) (session, error) {
	return s.begin(w, r, session{Method: method, Token: token})
}

// begin gives sess a new nonce and expiry and sets its cookie.
func (s *sessions) begin(w http.ResponseWriter, r *http.Request, sess session) (session, error) {
	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return session{}, fmt.Errorf("session nonce: %w", err)
	}
	sess.Nonce, sess.Expires = base64.RawURLEncoding.EncodeToString(nonce), s.now().Add(sessionTTL).Unix()
	if err := s.seal(w, r, sessionCookie, sess, sessionTTL); err != nil {
		return session{}, err
	}
	return sess, nil
}

// renew seals sess again (an OIDC session after a refresh), keeping its
// nonce and expiry.
func (s *sessions) renew(w http.ResponseWriter, r *http.Request, sess session) error {
	return s.seal(w, r, sessionCookie, sess, time.Until(time.Unix(sess.Expires, 0)))
}

// open returns the request's session, or errNoSession when its cookie is
// absent, forged, damaged or expired.
func (s *sessions) open(r *http.Request) (session, error) {
	var sess session
	if !s.unseal(r, sessionCookie, &sess) || sess.Nonce == "" || s.now().Unix() >= sess.Expires {
		return session{}, errNoSession
	}
	return sess, nil
}

// seal sets the cookie name to v, encoded as JSON and sealed (the cookie's
// name is the sealed data's associated data, so one cookie's value is
// never accepted as another's).
func (s *sessions) seal(w http.ResponseWriter, r *http.Request, name string, v any, ttl time.Duration) error {
	value, err := s.sealed(name, v)
	if err != nil {
		return err
	}
	http.SetCookie(w, cookie(r, name, value, int(ttl/time.Second)))
	return nil
}

// sealed is the value of the cookie name holding v.
func (s *sessions) sealed(name string, v any) (string, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode %s cookie: %w", name, err)
	}
	sealed, err := s.box.Seal(plain, []byte(name))
	if err != nil {
		return "", fmt.Errorf("%s cookie: %w", name, err)
	}
	return base64.RawURLEncoding.EncodeToString(sealed), nil
}

// unseal decodes the request's cookie name into v; false when it is
// absent, forged or damaged.
func (s *sessions) unseal(r *http.Request, name string, v any) bool {
	c, err := r.Cookie(name)
	if err != nil {
		return false
	}
	sealed, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil {
		return false
	}
	plain, err := s.box.Open(sealed, []byte(name))
	return err == nil && json.Unmarshal(plain, v) == nil
}

// end clears the session cookie.
func (s *sessions) end(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, cookie(r, sessionCookie, "", -1))
}

// id is the session's id in the store of ended sessions: derived from its
// random nonce (under its own key, so the id gives away neither the nonce
// nor the CSRF token derived from it).
func (s *sessions) id(sess session) string {
	m := hmac.New(sha256.New, s.idKey)
	m.Write([]byte(sess.Nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// csrfToken is the token a session's forms carry.
func (s *sessions) csrfToken(sess session) string {
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte(sess.Nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF reports whether a form's token is the session's.
func (s *sessions) checkCSRF(sess session, token string) bool {
	return hmac.Equal([]byte(token), []byte(s.csrfToken(sess)))
}

// cookie builds a cookie of the UI: HttpOnly, SameSite=Strict, scoped to
// /ui/, and Secure when the browser reached us over TLS (directly or
// through a proxy that says so).
func cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: prefix + "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"}
}
