package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestNarrowGrants: what a client consented with may still do when the
// person's grants change at the provider.
func TestNarrowGrants(t *testing.T) {
	tests := []struct {
		name               string
		consented, current []string
		want               []string
	}{
		{"unchanged", []string{"acme/*:write"}, []string{"acme/*:write"}, []string{"acme/*:write"}},
		{"group left", []string{"acme/*:write", "acme/handbook:read"}, []string{"acme/handbook:read"}, []string{"acme/handbook:read"}},
		{"every group left", []string{"acme/*:write"}, nil, nil},
		{"lowered", []string{"acme/*:write"}, []string{"acme/*:read"}, []string{"acme/*:read"}},
		{"raised at the provider: never past the consent", []string{"acme/*:read"}, []string{"acme/*:admin"}, []string{"acme/*:read"}},
		{"a wider current grant keeps the consented one", []string{"acme/api:write"}, []string{"acme/**:write"}, []string{"acme/api:write"}},
		{"a narrower current grant is what is left", []string{"acme/**:write"}, []string{"acme/api:read"}, []string{"acme/api:read"}},
		{"a grant the consent did not give is not added", []string{"acme/api:write"}, []string{"other/*:admin", "acme/api:write"}, []string{"acme/api:write"}},
		{"partial overlap gives nothing", []string{"acme/*:write"}, []string{"*/api:write"}, nil},
		{"* does not cover **", []string{"acme/**:read"}, []string{"acme/*:read"}, []string{"acme/*:read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NarrowGrants(tt.consented, tt.current); !slices.Equal(got, tt.want) {
				t.Errorf("NarrowGrants(%q, %q) = %q; want %q", tt.consented, tt.current, got, tt.want)
			}
		})
	}
}

// memSignIns is a SignInStore in memory: UpdateSignIn holds one lock for
// all sign-ins (upd), as a row lock would hold one, while SignIn reads
// without waiting for it.
type memSignIns struct {
	upd   sync.Mutex
	mu    sync.Mutex
	m     map[string]SignIn
	ended map[string]string // id → why
}

func (s *memSignIns) StartSignIn(_ context.Context, si SignIn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m, s.ended = map[string]SignIn{}, map[string]string{}
	}
	s.m[si.ID] = si
	return nil
}

func (s *memSignIns) SignIn(_ context.Context, id string) (SignIn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	si, ok := s.m[id]
	if !ok {
		return si, ErrNotFound
	}
	return si, nil
}

func (s *memSignIns) UpdateSignIn(ctx context.Context, id string, _ time.Time, change func(SignIn) (SignInChange, error)) ([]string, error) {
	s.upd.Lock()
	defer s.upd.Unlock()
	cur, err := s.SignIn(ctx, id)
	if err != nil {
		return nil, err
	}
	c, err := change(cur)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		return nil, err
	case c.Ended != "":
		delete(s.m, id)
		s.ended[id] = c.Ended
	default:
		s.m[id] = c.SignIn
	}
	return nil, nil
}

func (s *memSignIns) SignOutSignIn(context.Context, string, time.Time) error { return nil }

// fakeIdP answers every refresh with answer (and a new refresh token each
// time), counting them.
type fakeIdP struct {
	mu     sync.Mutex
	asked  int
	answer Identity
}

func (*fakeIdP) Name() string                         { return "fake" }
func (*fakeIdP) AuthCodeURL(_, _, _, _ string) string { return "" }
func (*fakeIdP) Exchange(context.Context, string, string, string, string) (Identity, error) {
	return Identity{}, ErrUnavailable
}

func (p *fakeIdP) Refresh(context.Context, string) (Identity, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked++
	id := p.answer
	time.Sleep(20 * time.Millisecond) // the others read the sign-in meanwhile
	id.RefreshToken = fmt.Sprintf("rt-%d", p.asked)
	return id, nil
}

func (p *fakeIdP) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.asked
}

// TestSignInsAskOncePerRecheck: within the recheck the provider is not
// asked; past it, concurrent Current calls ask it once (the others find
// the answer fresh under the store's lock); an answer for another
// subject ends the sign-in.
func TestSignInsAskOncePerRecheck(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	idp := &fakeIdP{answer: Identity{Subject: "ann@acme.example", Grants: []Grant{{Glob: []string{"acme", "*"}, Perm: PermWrite}}}}
	store := &memSignIns{}
	s, err := NewSignIns(SignInsOptions{Store: store, Provider: idp, Recheck: time.Minute, Now: func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		return now
	}})
	if err != nil {
		t.Fatal(err)
	}
	si, err := s.Start(ctx, Identity{Subject: "ann@acme.example", RefreshToken: "rt-0"}, now.Add(12*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	clock.Lock()
	now = now.Add(30 * time.Second)
	clock.Unlock()
	if _, err := s.Current(ctx, si.ID); err != nil || idp.count() != 0 {
		t.Fatalf("within the recheck: %v, provider asked %d times; want it not asked", err, idp.count())
	}
	clock.Lock()
	now = now.Add(time.Minute)
	clock.Unlock()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got, err := s.Current(ctx, si.ID); err != nil || !slices.Equal(got.Grants, []string{"acme/*:write"}) {
				t.Errorf("past the recheck: %v, grants %q", err, got.Grants)
			}
		})
	}
	wg.Wait()
	if n := idp.count(); n != 1 {
		t.Errorf("8 concurrent calls past the recheck asked the provider %d times; want once", n)
	}
	idp.mu.Lock()
	idp.answer.Subject = "bob@acme.example"
	idp.mu.Unlock()
	clock.Lock()
	now = now.Add(2 * time.Minute)
	clock.Unlock()
	if _, err := s.Current(ctx, si.ID); !errors.Is(err, ErrSignInEnded) {
		t.Fatalf("an answer for another person: %v; want ErrSignInEnded", err)
	}
	if why := store.ended[si.ID]; !strings.Contains(why, "another person") {
		t.Errorf("ended because %q; want the other person named", why)
	}
}
