package auth

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teammem/teammem/server"
)

// AccessClaims are the claims of an OAuth access token: a teammem token
// whose audience is the one resource it was issued for (RFC 8707), naming
// the client and the session (sid) it was issued to.
type AccessClaims struct {
	Grants   []string `json:"grants"`
	ClientID string   `json:"client_id"`
	Session  string   `json:"sid"`
	Name     string   `json:"name,omitempty"`
	// ProposeOnly is a teammem token's (Claims.ProposeOnly); an access
	// token never carries it.
	ProposeOnly bool `json:"propose_only,omitempty"`
	jwt.RegisteredClaims
}

// IssueAccess returns an OAuth access token for the session s, valid for
// ttl (never past the session's end) on s.Resource alone, and when it
// expires.
func (i *Issuer) IssueAccess(s server.OAuthSession, ttl time.Duration) (string, time.Time, error) {
	if err := checkResource(s.Resource); err != nil {
		return "", time.Time{}, fmt.Errorf("issue access token: %w", err)
	}
	now := i.clock()
	exp := now.Add(ttl).Truncate(time.Second)
	if end := s.ExpiresAt.Truncate(time.Second); end.Before(exp) {
		exp = end
	}
	if !exp.After(now.Truncate(time.Second)) {
		return "", time.Time{}, fmt.Errorf("issue access token: the session has ended")
	}
	jti := make([]byte, 12)
	if _, err := rand.Read(jti); err != nil {
		return "", time.Time{}, fmt.Errorf("issue access token: %w", err)
	}
	claims := AccessClaims{Grants: s.Grants, ClientID: s.ClientID, Session: s.ID, Name: s.DisplayName,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    i.name(),
			Audience:  jwt.ClaimStrings{s.Resource},
			Subject:   s.Subject,
			IssuedAt:  jwt.NewNumericDate(now.Truncate(time.Second)),
			ExpiresAt: jwt.NewNumericDate(exp),
			ID:        hex.EncodeToString(jti), // each token its own, even two of one session in one second
		}}
	token, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(i.Key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("issue access token: %w", err)
	}
	return token, exp, nil
}

func (i *Issuer) clock() time.Time {
	if i.Now != nil {
		return i.Now()
	}
	return time.Now()
}

// checkResource reports a resource indicator that is not an absolute http
// or https URL without a fragment (RFC 8707).
func checkResource(resource string) error {
	u, err := url.Parse(resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
		return fmt.Errorf("%.80q is not a resource indicator (an absolute URL)", resource)
	}
	return nil
}
