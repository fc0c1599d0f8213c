package oauth

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
)

// authRequest is an authorization request that checked out.
type authRequest struct {
	client      client
	redirectURI string
	state       string
	challenge   string
	resource    string
}

// redirectError is a refusal sent back to the client's redirect URI.
type redirectError struct{ code, description string }

func (e *redirectError) Error() string { return e.code + ": " + e.description }

// parse checks an authorization request. A client or redirect URI that
// cannot be trusted is an error wrapping server.ErrInvalid (never
// redirected to); any other refusal is a *redirectError, with the request
// as far as it was checked.
func (s *Server) parse(ctx context.Context, base string, q url.Values) (authRequest, error) {
	for k, v := range q {
		if len(v) > 1 {
			return authRequest{}, server.InvalidParameter("the parameter %.40q is given twice", k)
		}
	}
	c, err := s.resolve(ctx, q.Get("client_id"))
	if err != nil {
		return authRequest{}, err
	}
	req := authRequest{client: c, redirectURI: q.Get("redirect_uri"), state: q.Get("state"),
		challenge: q.Get("code_challenge"), resource: q.Get("resource")}
	if !slices.Contains(c.RedirectURIs, req.redirectURI) {
		return authRequest{}, server.InvalidParameter("the redirect URI %.100q is not one the client %.80q registered", req.redirectURI, c.ID)
	}
	if req.resource == "" {
		req.resource = base + "/mcp" // a client that names no resource is an MCP client of an earlier revision
	}
	switch {
	case q.Get("response_type") != "code":
		return req, &redirectError{"unsupported_response_type", "response_type must be code"}
	case req.state == "":
		return req, &redirectError{"invalid_request", "state is required"}
	case len(req.state) > 512:
		return req, &redirectError{"invalid_request", "state is longer than 512 characters"}
	case q.Get("code_challenge_method") != "S256" || !challengePattern.MatchString(req.challenge):
		return req, &redirectError{"invalid_request", "PKCE is required: code_challenge with code_challenge_method S256"}
	case !slices.Contains(resources(base), req.resource):
		return req, &redirectError{"invalid_target", "resource must be one of " + strings.Join(resources(base), ", ")}
	}
	return req, nil
}

// answer is the client's redirect URI with the parameters of an answer,
// the issuer among them (RFC 9207).
func answer(base string, req authRequest, params url.Values) string {
	u, _ := url.Parse(req.redirectURI) // checked when the client registered it
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if req.state != "" {
		q.Set("state", req.state)
	}
	q.Set("iss", base)
	u.RawQuery = q.Encode()
	return u.String()
}

// authorize checks the request and sends the browser to the consent page
// of the web UI; a refusal goes back to the client, or, when the client
// or its redirect URI cannot be trusted, is shown here.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	base := s.base(r)
	req, err := s.parse(r.Context(), base, r.URL.Query())
	var re *redirectError
	switch {
	case errors.As(err, &re):
		http.Redirect(w, r, answer(base, req, url.Values{"error": {re.code}, "error_description": {re.description}}), http.StatusFound)
		return
	case err != nil:
		refusal(w, err)
		return
	}
	// A page of ours that moves on by itself: a redirect would carry the
	// client's site along, and the web UI's SameSite=Strict cookie would
	// not be sent to the consent page.
	page(w, http.StatusOK, "Continue to sign in", ConsentPath+"?"+r.URL.RawQuery)
}

var pageTemplate = template.Must(template.New("p").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>teammem: {{.Title}}</title>
{{if .Next}}<meta http-equiv="refresh" content="0;url={{.Next}}">{{end}}</head>
<body><h1>{{.Title}}</h1>{{if .Next}}<p><a href="{{.Next}}">Continue</a></p>{{else}}<p>{{.Message}}</p>{{end}}</body></html>
`))

// page writes a small page of the authorization server.
func page(w http.ResponseWriter, status int, title, next string) {
	writePage(w, status, struct{ Title, Next, Message string }{title, next, ""})
}

// refusal shows why an authorization request is refused, without sending
// the browser anywhere.
func refusal(w http.ResponseWriter, err error) {
	msg := "The request could not be checked; try again."
	status := http.StatusServiceUnavailable
	if errors.Is(err, server.ErrInvalid) {
		msg, status = err.Error(), http.StatusBadRequest
	}
	writePage(w, status, struct{ Title, Next, Message string }{"This sign-in request is refused", "", msg})
}

func writePage(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	pageTemplate.Execute(w, v)
}

// Consent checks an authorization request for the consent page
// (server.Authorizer).
func (s *Server) Consent(ctx context.Context, base string, params url.Values) (server.ConsentRequest, error) {
	req, err := s.parse(ctx, base, params)
	if err != nil {
		return server.ConsentRequest{}, asInvalid(err)
	}
	return server.ConsentRequest{ClientID: req.client.ID, ClientName: req.client.Name, RedirectURI: req.redirectURI,
		Resource: req.resource, Params: params}, nil
}

// asInvalid makes a redirectError shown on the consent page an ErrInvalid.
func asInvalid(err error) error {
	var re *redirectError
	if errors.As(err, &re) {
		return server.InvalidParameter("%s", re.description)
	}
	return err
}

// Approve records the consent of p and returns the redirect with the code
// (server.Authorizer). The session lives no longer than the credential p
// signed in with.
func (s *Server) Approve(ctx context.Context, base string, params url.Values, p server.Principal) (string, error) {
	req, err := s.parse(ctx, base, params)
	if err != nil {
		return "", asInvalid(err)
	}
	now := s.o.Now().UTC()
	_, code, err := s.startSession(ctx, p, server.OAuthSession{ClientID: req.client.ID, ClientName: req.client.Name,
		RedirectURI: req.redirectURI, CodeChallenge: req.challenge, Resource: req.resource, CodeExpires: now.Add(codeTTL)})
	if err != nil {
		return "", err
	}
	return answer(base, req, url.Values{"code": {code}}), nil
}

// startSession records the consent of p to the client, redirect and
// resource of sess, and returns the session and its authorization code.
// The session lives no longer than the credential p signed in with.
func (s *Server) startSession(ctx context.Context, p server.Principal, sess server.OAuthSession) (server.OAuthSession, string, error) {
	now := s.o.Now().UTC()
	sess.Subject, sess.DisplayName, sess.Parent, sess.ParentExpires = p.Subject, p.DisplayName, p.Credential, p.Expires
	sess.CreatedAt, sess.ExpiresAt = now, now.Add(s.o.SessionTTL)
	// A session consented from a sign-in with the identity provider lives
	// on past the web session while the provider vouches for the person
	// (see upstream); any other lives no longer than its credential.
	_, fromSignIn := server.SignInOf(p.Credential)
	if fromSignIn && s.o.SignIns != nil {
		sess.ParentExpires = sess.ExpiresAt
	} else if !p.Expires.IsZero() && p.Expires.Before(sess.ExpiresAt) {
		sess.ExpiresAt = p.Expires
	}
	if sess.ParentExpires.IsZero() {
		sess.ParentExpires = sess.ExpiresAt
	}
	sess.Grants = server.GrantStrings(p.Grants)
	if len(sess.Grants) == 0 {
		return sess, "", fmt.Errorf("%w: you hold no grant to give a client", server.ErrForbidden)
	}
	code, err := secret(32)
	if err != nil {
		return sess, "", err
	}
	sess.ID = server.NewRecordID()
	if err := s.o.Store.StartOAuthSession(ctx, sess, hash(code)); err != nil {
		return sess, "", err
	}
	s.o.Logger.Info("OAuth consent", "subject", p.Subject, "client_id", sess.ClientID, "session", sess.ID, "resource", sess.Resource)
	return sess, code, nil
}

// Deny returns the redirect telling the client the person refused
// (server.Authorizer).
func (s *Server) Deny(ctx context.Context, base string, params url.Values) (string, error) {
	req, err := s.parse(ctx, base, params)
	if err != nil {
		return "", asInvalid(err)
	}
	return answer(base, req, url.Values{"error": {"access_denied"}, "error_description": {"the person declined"}}), nil
}

// Sessions lists the subject's live sessions and those ended lately
// (server.Authorizer).
func (s *Server) Sessions(ctx context.Context, subject string) (live, ended []server.OAuthSession, err error) {
	now := s.o.Now()
	if live, err = s.o.Store.OAuthSessions(ctx, subject, now); err != nil {
		return nil, nil, err
	}
	ended, err = s.o.Store.EndedOAuthSessions(ctx, subject, now.Add(-server.EndedShownFor))
	return live, ended, err
}

// RevokeSession ends one of the subject's sessions, its access tokens
// included (server.Authorizer; subject "" for any subject's).
func (s *Server) RevokeSession(ctx context.Context, subject, id string) error {
	if err := server.CheckOAuthSessionID(id); err != nil {
		return err
	}
	if err := s.o.Store.RevokeOAuthSession(ctx, subject, id, s.o.Now()); err != nil {
		return err
	}
	return s.refuseAccessTokens(ctx, id)
}

// refuseAccessTokens records the session's id as revoked, which the
// verifier checks every access token's session against.
func (s *Server) refuseAccessTokens(ctx context.Context, id string) error {
	if s.o.Revocations == nil {
		return nil
	}
	return s.o.Revocations.Revoke(ctx, server.Revocation{TokenID: id, At: s.o.Now().UTC().Truncate(time.Microsecond)})
}
