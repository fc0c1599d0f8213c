package oauth

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/teammem/teammem/server"
)

// maxTokenForm bounds the token endpoint's body.
const maxTokenForm = 16 << 10

// tokenError is a refusal of the token endpoint (RFC 6749 5.2).
type tokenError struct {
	status            int
	code, description string
}

func (e *tokenError) Error() string { return e.code + ": " + e.description }

func invalidGrant(description string) error {
	return &tokenError{http.StatusBadRequest, "invalid_grant", description}
}

// token is the token endpoint: an authorization code or a refresh token
// for an access token and the next refresh token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if !s.readForm(w, r, "oauth-token") {
		return
	}
	f := r.PostForm
	var sess server.OAuthSession
	var refresh string
	var err error
	switch f.Get("grant_type") {
	case "authorization_code":
		sess, refresh, err = s.exchange(r.Context(), f.Get("code"), f.Get("client_id"), f.Get("redirect_uri"), f.Get("code_verifier"))
	case "refresh_token":
		sess, refresh, err = s.refresh(r.Context(), f.Get("refresh_token"), f.Get("client_id"))
	case DeviceGrantType:
		if s.o.Devices == nil {
			err = &tokenError{http.StatusBadRequest, "unsupported_grant_type", "this server does not take device sign-ins"}
			break
		}
		sess, refresh, err = s.pollDevice(r.Context(), f.Get("device_code"), f.Get("client_id"))
	default:
		err = &tokenError{http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code, refresh_token or " + DeviceGrantType}
	}
	if err == nil && f.Has("resource") && f.Get("resource") != sess.Resource {
		// The code or refresh token is spent: the session would live on
		// with nobody holding it.
		err = s.kill(r.Context(), sess.ID, &tokenError{http.StatusBadRequest, "invalid_target", "the grant is for " + sess.Resource})
	}
	var access string
	if err == nil {
		access, _, err = s.o.Issuer.IssueAccess(sess, s.o.AccessTTL)
	}
	var te *tokenError
	switch {
	case errors.As(err, &te):
		s.o.Logger.Warn("OAuth token refused", "error", te.code, "reason", te.description, "client", peer(r))
		writeOAuthError(w, te.status, te.code, te.description)
		return
	case err != nil:
		s.o.Middleware.WriteError(w, r, err)
		return
	}
	ttl := int(s.o.AccessTTL.Seconds())
	if left := int(sess.ExpiresAt.Sub(s.o.Now()).Seconds()); left < ttl {
		ttl = left
	}
	// refresh_token_expires_in tells the client when the sign-in itself
	// ends (the agent's status shows it).
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": ttl,
		"refresh_token": refresh, "refresh_token_expires_in": int(sess.ExpiresAt.Sub(s.o.Now()).Seconds())})
}

// exchange takes an authorization code: once, by the client it was
// issued to, with the redirect URI it was sent to and the PKCE verifier of
// its challenge. A code presented with anything wrong is spent and its
// session revoked: whoever holds it is not to be trusted.
func (s *Server) exchange(ctx context.Context, code, clientID, redirectURI, verifier string) (server.OAuthSession, string, error) {
	if code == "" {
		return server.OAuthSession{}, "", &tokenError{http.StatusBadRequest, "invalid_request", "code is required"}
	}
	refresh, err := secret(32)
	if err != nil {
		return server.OAuthSession{}, "", err
	}
	sess, err := s.o.Store.TakeCode(ctx, hash(code), hash(refresh), s.o.Now())
	switch {
	case errors.Is(err, server.ErrCodeReused):
		return sess, "", s.kill(ctx, sess.ID, invalidGrant("the code was already used; the session it started is revoked"))
	case errors.Is(err, server.ErrNotFound):
		return sess, "", invalidGrant("the code is unknown or expired")
	case err != nil:
		return sess, "", err
	}
	var refused string
	switch {
	case clientID != sess.ClientID:
		refused = "the code was issued to another client"
	case redirectURI != sess.RedirectURI:
		refused = "redirect_uri is not the one the code was sent to"
	case !verifyPKCE(verifier, sess.CodeChallenge):
		refused = "code_verifier does not match the code_challenge"
	}
	if refused != "" {
		return sess, "", s.kill(ctx, sess.ID, invalidGrant(refused+"; the code is spent"))
	}
	return sess, refresh, nil
}

// refresh rotates a refresh token: the next one, and the session, unless
// the session ended meanwhile (revoked, expired, its person's credential
// revoked) or the token was used before (then the family dies).
func (s *Server) refresh(ctx context.Context, old, clientID string) (server.OAuthSession, string, error) {
	if old == "" {
		return server.OAuthSession{}, "", &tokenError{http.StatusBadRequest, "invalid_request", "refresh_token is required"}
	}
	grants, err := s.upstream(ctx, hash(old))
	if err != nil {
		return server.OAuthSession{}, "", err
	}
	next, err := secret(32)
	if err != nil {
		return server.OAuthSession{}, "", err
	}
	sess, err := s.o.Store.RotateRefresh(ctx, hash(old), hash(next), s.o.Now())
	switch {
	case errors.Is(err, server.ErrRefreshReused):
		return sess, "", s.kill(ctx, sess.ID, invalidGrant("the refresh token was already used; every token of its sign-in is revoked"))
	case errors.Is(err, server.ErrNotFound):
		return sess, "", invalidGrant("the refresh token is unknown, revoked or expired; sign in again")
	case err != nil:
		return sess, "", err
	}
	if clientID != "" && clientID != sess.ClientID {
		return sess, "", s.kill(ctx, sess.ID, invalidGrant("the refresh token was issued to another client"))
	}
	if revoked, err := s.parentRevoked(ctx, sess); err != nil || revoked {
		if err != nil {
			return sess, "", err
		}
		return sess, "", s.kill(ctx, sess.ID, invalidGrant("the credential you signed in with was revoked; sign in again"))
	}
	if _, ok := server.SignInOf(sess.Parent); ok && s.o.SignIns == nil {
		return sess, "", s.kill(ctx, sess.ID, invalidGrant("sign-in with the identity provider is off on this server; sign in again"))
	}
	if grants != nil {
		sess.Grants = grants
	}
	return sess, next, nil
}

// upstream asks the identity provider again, when the session of the
// unused refresh token with hash tokenHash descends from a sign-in with
// it, and returns the session's grants narrowed to those the provider
// gives now (nil for any other session, or a
// token that is not an unused one: the rotation then refuses it). The
// provider refusing, or giving none of the grants the session holds,
// ends the session; a provider that has not answered for longer than the
// grace is a refusal that spends nothing, to be tried again.
func (s *Server) upstream(ctx context.Context, tokenHash string) ([]string, error) {
	if s.o.SignIns == nil {
		return nil, nil
	}
	sess, err := s.o.Store.RefreshSession(ctx, tokenHash, s.o.Now())
	if errors.Is(err, server.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	id, ok := server.SignInOf(sess.Parent)
	if !ok {
		return nil, nil
	}
	si, err := s.o.SignIns.Current(ctx, id)
	switch {
	case errors.Is(err, server.ErrUnauthenticated):
		s.o.Logger.Info("OAuth session ended with its sign-in", "session", sess.ID, "subject", sess.Subject, "reason", err.Error())
		return nil, s.kill(ctx, sess.ID, invalidGrant("your sign-in with the identity provider has ended; sign in again"))
	case errors.Is(err, server.ErrUnavailable):
		s.o.Logger.Warn("identity provider unreachable past the grace; refresh refused, nothing spent", "session", sess.ID, "error", err.Error())
		return nil, &tokenError{http.StatusServiceUnavailable, "temporarily_unavailable", "the identity provider cannot be reached; try again later"}
	case err != nil:
		return nil, err
	}
	grants := server.NarrowGrants(sess.Grants, si.Grants)
	if len(grants) == 0 {
		return nil, s.kill(ctx, sess.ID, invalidGrant("you no longer hold any of the grants this sign-in was given; sign in again"))
	}
	return grants, nil
}

// kill ends a session (its access tokens too) and returns refusal; the
// session lists as ended by the server for the refusal's reason.
func (s *Server) kill(ctx context.Context, id string, refusal error) error {
	if id == "" {
		return refusal
	}
	why := refusal.Error()
	if te, ok := refusal.(*tokenError); ok {
		why = te.description
	}
	if err := s.o.Store.EndOAuthSession(ctx, id, why, s.o.Now()); err != nil {
		return err
	}
	if err := s.refuseAccessTokens(ctx, id); err != nil {
		return err
	}
	return refusal
}

// parentRevoked reports whether the credential the person consented with
// was revoked since: the token itself, or all of the subject's tokens
// issued before a time after the session started.
func (s *Server) parentRevoked(ctx context.Context, sess server.OAuthSession) (bool, error) {
	if s.o.Revocations == nil {
		return false, nil
	}
	list, err := s.o.Revocations.Revocations(ctx)
	if err != nil {
		return false, err
	}
	_, parentID, _ := strings.Cut(sess.Parent, ":")
	for _, rv := range list {
		if rv.TokenID != "" && rv.TokenID == parentID || rv.Subject == sess.Subject && rv.Before.After(sess.CreatedAt) {
			return true, nil
		}
	}
	return false, nil
}
