package webui

import (
	"crypto/aes"
	"crypto/cipher"
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
)

// The web UI's sessions are sealed in the browser's cookie (AES-GCM under a
// key derived from the server's secret), so every replica that shares the
// secret accepts them and the server keeps no session state. The cookie
// holds how the browser signed in; the principal is worked out again on
// every request, so an expired or revoked token ends the session at once.

// sessionCookie is the session cookie's name.
const sessionCookie = "teammem_session"

// sessionTTL bounds a session, whatever the lifetime of its token.
const sessionTTL = 12 * time.Hour

// maxSessionToken bounds the token a session may hold, so the sealed
// cookie stays under browsers' 4 KiB limit.
const maxSessionToken = 2800

// Sign-in methods a session can hold. An OIDC sign-in (authorization code
// flow) would add its own method holding the verified identity.
const (
	methodToken = "token" // a pasted teammem token, verified again on every request
	methodNone  = "none"  // --insecure-no-auth: everyone is the httpkit.Anonymous admin
)

// uiSession is what a signed-in browser holds, sealed in its cookie.
type uiSession struct {
	Method  string `json:"m"`
	Token   string `json:"t,omitempty"`
	Nonce   string `json:"n"` // random per sign-in; the CSRF token is derived from it
	Expires int64  `json:"e"` // Unix seconds
}

// errNoSession is a request without a valid session cookie.
var errNoSession = errors.New("no valid session")

// sessions seals sessions into cookies and derives their CSRF tokens.
type sessions struct {
	aead    cipher.AEAD
	csrfKey []byte
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
	sealKey, err := hkdf.Key(sha256.New, secret, nil, "teammem web ui session seal", 32)
	if err != nil {
		return nil, fmt.Errorf("derive session key: %w", err)
	}
	csrfKey, err := hkdf.Key(sha256.New, secret, nil, "teammem web ui csrf", 32)
	if err != nil {
		return nil, fmt.Errorf("derive csrf key: %w", err)
	}
	block, err := aes.NewCipher(sealKey)
	if err != nil {
		return nil, fmt.Errorf("session cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("session cipher: %w", err)
	}
	return &sessions{aead: aead, csrfKey: csrfKey, now: time.Now}, nil
}

// start makes a new session for method and token and sets its cookie.
func (s *sessions) start(w http.ResponseWriter, r *http.Request, method, token string) (uiSession, error) {
	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return uiSession{}, fmt.Errorf("session nonce: %w", err)
	}
	sess := uiSession{Method: method, Token: token, Nonce: base64.RawURLEncoding.EncodeToString(nonce),
		Expires: s.now().Add(sessionTTL).Unix()}
	plain, err := json.Marshal(sess)
	if err != nil {
		return uiSession{}, fmt.Errorf("encode session: %w", err)
	}
	iv := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(iv); err != nil {
		return uiSession{}, fmt.Errorf("session nonce: %w", err)
	}
	sealed := s.aead.Seal(iv, iv, plain, []byte(sessionCookie))
	http.SetCookie(w, sessionCookieFor(r, base64.RawURLEncoding.EncodeToString(sealed), int(sessionTTL/time.Second)))
	return sess, nil
}

// open returns the request's session, or errNoSession when its cookie is
// absent, forged, damaged or expired.
func (s *sessions) open(r *http.Request) (uiSession, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return uiSession{}, errNoSession
	}
	sealed, err := base64.RawURLEncoding.DecodeString(c.Value)
	ns := s.aead.NonceSize()
	if err != nil || len(sealed) < ns {
		return uiSession{}, errNoSession
	}
	plain, err := s.aead.Open(nil, sealed[:ns], sealed[ns:], []byte(sessionCookie))
	if err != nil {
		return uiSession{}, errNoSession
	}
	var sess uiSession
	if err := json.Unmarshal(plain, &sess); err != nil || sess.Nonce == "" || s.now().Unix() >= sess.Expires {
		return uiSession{}, errNoSession
	}
	return sess, nil
}

// end clears the session cookie.
func (s *sessions) end(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, sessionCookieFor(r, "", -1))
}

// csrfToken is the token a session's forms carry.
func (s *sessions) csrfToken(sess uiSession) string {
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte(sess.Nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF reports whether a form's token is the session's.
func (s *sessions) checkCSRF(sess uiSession, token string) bool {
	return hmac.Equal([]byte(token), []byte(s.csrfToken(sess)))
}

// sessionCookieFor builds the cookie: HttpOnly, SameSite=Strict, scoped to
// /ui/, and Secure when the browser reached us over TLS (directly or
// through a proxy that says so).
func sessionCookieFor(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: sessionCookie, Value: value, Path: uiPrefix + "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"}
}
