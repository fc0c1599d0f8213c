package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/teammem/teammem/internal/sealbox"
)

// Defaults of SignIns.
const (
	// DefaultSignInRecheck is how old the provider's last answer may be
	// before a refresh asks it again.
	DefaultSignInRecheck = 5 * time.Minute
	// DefaultSignInGrace is how long the last answer's grants are kept
	// while the provider cannot be reached.
	DefaultSignInGrace = time.Hour
)

// ErrSignInEnded is a sign-in the identity provider no longer vouches for:
// it refused the refresh (the person disabled, the token revoked), or
// answered for another person. It wraps ErrUnauthenticated.
var ErrSignInEnded = fmt.Errorf("the identity provider no longer vouches for this sign-in: %w", ErrUnauthenticated)

// SignIns keeps people's sign-ins with the identity provider current for
// the web UI and the OAuth authorization server alike: it records a
// sign-in with the provider's refresh token sealed under the server's
// secret, and, once the provider's last answer is older than Recheck,
// asks the provider again (one replica at a time per sign-in), so that
// the grants follow the person's claims. A refusal ends the sign-in and
// every OAuth session consented from it; a provider that cannot be
// reached leaves the last grants in force for Grace after its last answer.
type SignIns struct {
	store       SignInStore
	provider    IdentityProvider
	revocations RevocationStore
	recheck     time.Duration
	grace       time.Duration
	now         func() time.Time
	box         *sealbox.Box
}

// SignInsOptions configure SignIns.
type SignInsOptions struct {
	Store    SignInStore
	Provider IdentityProvider
	// Revocations, when set, records the OAuth sessions a refusal ends,
	// so their access tokens are refused at once.
	Revocations RevocationStore
	// Recheck and Grace: DefaultSignInRecheck and DefaultSignInGrace when 0.
	Recheck, Grace time.Duration
	// Secret keys the sealing of the provider's refresh tokens (the
	// server's secret, shared by its replicas; nil: a random one).
	Secret []byte
	Now    func() time.Time
}

// NewSignIns returns SignIns; an error means no sealing key could be made.
func NewSignIns(o SignInsOptions) (*SignIns, error) {
	if o.Recheck <= 0 {
		o.Recheck = DefaultSignInRecheck
	}
	if o.Grace <= 0 {
		o.Grace = DefaultSignInGrace
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if len(o.Secret) == 0 { // sign-ins then end with the process, as the web UI's sessions do
		o.Secret = make([]byte, 32)
		if _, err := rand.Read(o.Secret); err != nil {
			return nil, fmt.Errorf("sign-ins: %w", err)
		}
	}
	box, err := sealbox.New(o.Secret, "teammem identity provider refresh token seal")
	if err != nil {
		return nil, fmt.Errorf("sign-ins: %w", err)
	}
	return &SignIns{store: o.Store, provider: o.Provider, revocations: o.Revocations, recheck: o.Recheck,
		grace: o.Grace, now: o.Now, box: box}, nil
}

// Recheck is how old the provider's last answer may be before Current
// asks it again.
func (s *SignIns) Recheck() time.Duration { return s.recheck }

// Start records the sign-in of id, whose web session ends at webExpires.
func (s *SignIns) Start(ctx context.Context, id Identity, webExpires time.Time) (SignIn, error) {
	now := s.now().UTC().Truncate(time.Microsecond)
	si := SignIn{ID: NewRecordID(), Subject: id.Subject, Grants: GrantStrings(id.Grants),
		CheckedAt: now, WebExpires: webExpires.UTC().Truncate(time.Microsecond), CreatedAt: now}
	sealed, err := s.box.Seal([]byte(id.RefreshToken), []byte(si.ID))
	if err != nil {
		return si, err
	}
	si.Sealed = sealed
	return si, s.store.StartSignIn(ctx, si)
}

// SignOut ends the web session of the sign-in id; the sign-in itself is
// forgotten once no OAuth session descends from it.
func (s *SignIns) SignOut(ctx context.Context, id string) error {
	return s.store.SignOutSignIn(ctx, id, s.now().UTC())
}

// Current is the sign-in id with grants the provider vouched for at most
// Recheck ago, asking it again when its last answer is older. Errors:
// ErrSignInEnded when the provider refuses (the sign-in and its OAuth
// sessions are then ended) or the sign-in is no longer there;
// ErrUnavailable when the provider has not answered for longer than Grace
// (the sign-in is kept: a later call may succeed).
func (s *SignIns) Current(ctx context.Context, id string) (SignIn, error) {
	si, err := s.store.SignIn(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return si, ErrSignInEnded
	}
	if err != nil || s.now().Sub(si.CheckedAt) < s.recheck {
		return si, err
	}
	var next SignIn
	var ended string
	var askFailed error
	revoked, err := s.store.UpdateSignIn(ctx, id, s.now().UTC(), func(cur SignIn) (SignInChange, error) {
		next = cur
		if s.now().Sub(cur.CheckedAt) < s.recheck {
			return SignInChange{SignIn: cur}, nil // another replica asked while this one waited
		}
		change, failed, err := s.ask(ctx, cur)
		next, ended, askFailed = change.SignIn, change.Ended, failed
		return change, err
	})
	if err == nil && askFailed != nil {
		err = askFailed // the provider's new refresh token is kept, its answer was not read
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return si, ErrSignInEnded
	case errors.Is(err, ErrUnavailable) && s.now().Sub(si.CheckedAt) < s.grace:
		return si, nil // the provider is down: its last answer holds for a while
	case err != nil:
		return si, err
	case ended != "":
		return si, errors.Join(fmt.Errorf("%s: %w", ended, ErrSignInEnded), s.refuseAccessTokens(ctx, revoked))
	}
	return next, nil
}

// ask refreshes with the provider: the sign-in with the person's grants as
// they are now, or its end when the provider refuses. When the provider
// answered the refresh with a new refresh token but the person's identity
// could not be read after it (its userinfo endpoint down), the change
// keeps the new token and the grants as they were, and failed says why:
// a provider that rotates its refresh tokens has spent the old one, and
// dropping the new one would end the sign-in at the next ask. err means
// nothing is to be stored.
func (s *SignIns) ask(ctx context.Context, cur SignIn) (change SignInChange, failed, err error) {
	token, err := s.box.Open(cur.Sealed, []byte(cur.ID))
	if err != nil {
		return SignInChange{SignIn: cur, Ended: "the sign-in's refresh token does not open under this server's secret"}, nil, nil
	}
	if len(token) == 0 {
		return s.unverifiable(cur), nil, nil
	}
	id, err := s.provider.Refresh(ctx, string(token))
	switch {
	case errors.Is(err, ErrUnauthenticated):
		return SignInChange{SignIn: cur, Ended: "the identity provider refused the refresh"}, nil, nil
	case err != nil && (id.RefreshToken == "" || id.RefreshToken == string(token)):
		return SignInChange{}, nil, err
	case err != nil:
		failed = err
	case id.Subject != cur.Subject:
		return SignInChange{SignIn: cur, Ended: "the identity provider answered for another person"}, nil, nil
	default:
		cur.Grants, cur.CheckedAt = GrantStrings(id.Grants), s.now().UTC().Truncate(time.Microsecond)
	}
	if cur.Sealed, err = s.box.Seal([]byte(id.RefreshToken), []byte(cur.ID)); err != nil {
		return SignInChange{}, nil, err
	}
	return SignInChange{SignIn: cur}, failed, nil
}

// unverifiable is the change to a sign-in the provider gave no refresh
// token for (Google without offline access, a provider that refuses
// offline_access): it cannot be asked again, so it keeps the grants of
// its sign-in until the web session it started ends (12 hours, or
// sign-out), and then ends.
func (s *SignIns) unverifiable(cur SignIn) SignInChange {
	now := s.now().UTC().Truncate(time.Microsecond)
	if now.Before(cur.WebExpires) {
		cur.CheckedAt = now
		return SignInChange{SignIn: cur}
	}
	return SignInChange{SignIn: cur, Ended: "the identity provider gave no refresh token, so the sign-in ended with its web session"}
}

// refuseAccessTokens records the ended OAuth sessions as revoked, which
// the verifier checks every access token's session against; the refusal
// is the result when it is recorded.
func (s *SignIns) refuseAccessTokens(ctx context.Context, sessions []string) error {
	if s.revocations == nil {
		return nil
	}
	at := s.now().UTC().Truncate(time.Microsecond)
	for _, id := range sessions {
		if err := s.revocations.Revoke(ctx, Revocation{TokenID: id, At: at}); err != nil {
			return err
		}
	}
	return nil
}

// GrantStrings is each of gs in its text form, never nil (an empty list
// is [] in JSON).
func GrantStrings(gs []Grant) []string {
	out := []string{}
	for _, g := range gs {
		out = append(out, g.String())
	}
	return out
}

// NarrowGrants is what a client consented to with grants consented may
// still do when the person holds current: each consented grant whose
// repositories a current grant covers, at the lower of the two
// permissions (and each current grant a consented one covers, likewise).
// A grant that does not parse gives nothing.
func NarrowGrants(consented, current []string) []string {
	var out []string
	add := func(glob []string, a, b Perm) {
		g := Grant{Glob: glob, Perm: min(a, b)}.String()
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	for _, cs := range consented {
		c, err := ParseGrant(cs)
		if err != nil {
			continue
		}
		for _, ms := range current {
			m, err := ParseGrant(ms)
			switch {
			case err != nil:
			case globCovers(m.Glob, c.Glob):
				add(c.Glob, c.Perm, m.Perm)
			case globCovers(c.Glob, m.Glob):
				add(m.Glob, c.Perm, m.Perm)
			}
		}
	}
	return out
}
