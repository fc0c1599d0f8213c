package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// hostileSubjects are subjects the issuer no longer mints: a trailing
// space, a Cyrillic "а" in a Latin name, an OIDC user's subject.
var hostileSubjects = []string{"ana ", "\u0430na", "oidc:ana", "ana\u202e", "anonymous"}

// TestIssueRefusesHostileSubjects: every subject server.CheckSubject
// refuses is refused when a token is minted, with its reason.
func TestIssueRefusesHostileSubjects(t *testing.T) {
	iss := &Issuer{Key: newKey(t)}
	for _, s := range hostileSubjects {
		tok, rec, err := iss.IssueRecord(s, []string{"acme/*:write"}, time.Hour)
		if err == nil || tok != "" || rec.ID != "" || !strings.Contains(err.Error(), "subject") {
			t.Errorf("IssueRecord(%q) = %q, %+v, %v; want a refusal naming the subject", s, tok, rec, err)
		}
	}
}

// TestVerifyKeepsLegacySubjects: a token signed with such a subject
// before the rule still verifies, with its subject as signed, so that
// nobody is locked out; it lasts until it expires or is revoked.
func TestVerifyKeepsLegacySubjects(t *testing.T) {
	key := newKey(t)
	v, err := NewVerifier(key.Public(), VerifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, s := range hostileSubjects {
		claims := Claims{Grants: []string{"acme/*:write"}, RegisteredClaims: jwt.RegisteredClaims{
			Issuer: DefaultIssuer, Audience: jwt.ClaimStrings{Audience}, Subject: s, ID: "0123456789abcdef01234567",
			IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}
		tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		p, err := v.Authenticate(context.Background(), tok)
		if err != nil || p.Subject != s {
			t.Errorf("a token of %q issued before the subject rule: %+v, %v; want it verified", s, p, err)
		}
	}
}
