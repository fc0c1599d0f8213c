package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teammem/teammem/server"
)

// Audience is the audience of teammem tokens.
const Audience = "teammem"

// DefaultIssuer is the issuer name of the server's own tokens.
const DefaultIssuer = "teammem-server"

// Claims are the claims of a teammem token.
type Claims struct {
	Grants []string `json:"grants"`
	// ProposeOnly makes every write of the token a proposal, whatever the
	// repository's review policy (server.Principal.ProposeOnly).
	ProposeOnly bool `json:"propose_only,omitempty"`
	jwt.RegisteredClaims
}

// Issuer signs tokens with the server's Ed25519 key.
type Issuer struct {
	Key  ed25519.PrivateKey
	Name string // iss; DefaultIssuer when empty
	Now  func() time.Time
	// ProposeOnly issues tokens whose writes all become proposals (CI
	// jobs, bots).
	ProposeOnly bool
	random      func([]byte) (int, error)
}

// Issue returns a signed token for subject with the given grants
// ("<repo-glob>:<perm>", each validated) valid for ttl.
func (i *Issuer) Issue(subject string, grants []string, ttl time.Duration) (string, error) {
	token, _, err := i.IssueWithID(subject, grants, ttl)
	return token, err
}

// IssueWithID is Issue that also returns the token's id (its jti: 24
// random hex digits), the handle `token revoke --id` takes.
func (i *Issuer) IssueWithID(subject string, grants []string, ttl time.Duration) (token, id string, err error) {
	token, rec, err := i.IssueRecord(subject, grants, ttl)
	return token, rec.ID, err
}

// IssueRecord is Issue that also returns the record a store keeps of the
// token (server.TokenRegistry): its id, subject, grants and times exactly
// as the token's claims carry them. A subject server.CheckSubject refuses
// is not minted (Verifier still accepts a token issued with one before).
func (i *Issuer) IssueRecord(subject string, grants []string, ttl time.Duration) (token string, rec server.IssuedToken, err error) {
	if err := server.CheckSubject(subject); err != nil {
		return "", rec, fmt.Errorf("issue token: %w", err)
	}
	if ttl <= 0 {
		return "", rec, fmt.Errorf("issue token: ttl must be positive, got %v", ttl)
	}
	if len(grants) == 0 {
		return "", rec, errors.New("issue token: at least one grant is required")
	}
	for _, g := range grants {
		if _, err := server.ParseGrant(g); err != nil {
			return "", rec, fmt.Errorf("issue token: %w", err)
		}
	}
	now := time.Now
	if i.Now != nil {
		now = i.Now
	}
	random := make([]byte, 12)
	rnd := rand.Read
	if i.random != nil {
		rnd = i.random
	}
	if _, err := rnd(random); err != nil {
		return "", rec, fmt.Errorf("issue token: %w", err)
	}
	id := hex.EncodeToString(random)
	t := now()
	exp := t.Add(ttl)
	if r := exp.Truncate(time.Second); r.Before(exp) { // NumericDate keeps seconds: round up, never down
		exp = r.Add(time.Second)
	}
	claims := Claims{
		Grants:      grants,
		ProposeOnly: i.ProposeOnly,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    i.name(),
			Audience:  jwt.ClaimStrings{Audience},
			Subject:   subject,
			IssuedAt:  jwt.NewNumericDate(t.Truncate(time.Second)),
			ExpiresAt: jwt.NewNumericDate(exp),
			ID:        id,
		},
	}
	token, err = jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(i.Key)
	if err != nil {
		return "", rec, fmt.Errorf("issue token: %w", err)
	}
	rec = server.IssuedToken{ID: id, Subject: subject, Grants: slices.Clone(grants),
		IssuedAt: claims.IssuedAt.UTC(), ExpiresAt: claims.ExpiresAt.UTC()}
	return token, rec, nil
}

func (i *Issuer) name() string {
	if i.Name == "" {
		return DefaultIssuer
	}
	return i.Name
}
