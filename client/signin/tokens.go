package signin

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/teammem/teammem/internal/atomicfile"
	"github.com/teammem/teammem/internal/filelock"
)

// Tokens are what a sign-in keeps: the refresh token and the current
// access token with its expiry, and where to renew them.
type Tokens struct {
	Server        string    `json:"server"`
	ClientID      string    `json:"client_id"`
	TokenEndpoint string    `json:"token_endpoint"`
	AccessToken   string    `json:"access_token"`
	RefreshToken  string    `json:"refresh_token"`
	Expiry        time.Time `json:"expiry"`
	// Subject is who the sign-in is (the access token's sub); Until is
	// when the sign-in itself ends (the server's refresh_token_expires_in).
	Subject string    `json:"subject,omitempty"`
	Until   time.Time `json:"until,omitzero"`
}

// RefusedError is the token endpoint's refusal (RFC 6749 5.2), but for
// invalid_grant, which is ErrSignedOut.
type RefusedError struct {
	Code, Description string
	Status            int
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the token endpoint refused: %s %s (status %d)", e.Code, e.Description, e.Status)
}

// ErrSignedOut is a sign-in the server no longer takes (revoked, expired,
// or its refresh token replayed): log in again.
var ErrSignedOut = errors.New("the browser sign-in has ended")

// renewBefore is how long before its expiry an access token is renewed.
const renewBefore = time.Minute

// grant asks the token endpoint for tokens and keeps them in t.
func (t *Tokens) grant(ctx context.Context, hc *http.Client, form url.Values) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("reach the token endpoint: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		ExpiresIn    int    `json:"expires_in"`
		SessionIn    int    `json:"refresh_token_expires_in"`
		Error        string `json:"error"`
		Description  string `json:"error_description"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&out); err != nil {
		return fmt.Errorf("read the token endpoint's answer (status %d): %w", resp.StatusCode, err)
	}
	switch {
	case out.Error == "invalid_grant":
		return fmt.Errorf("%w: %s", ErrSignedOut, out.Description)
	case resp.StatusCode != http.StatusOK || out.AccessToken == "":
		return &RefusedError{Code: out.Error, Description: out.Description, Status: resp.StatusCode}
	}
	t.AccessToken, t.Expiry = out.AccessToken, time.Now().Add(time.Duration(out.ExpiresIn)*time.Second)
	if out.RefreshToken != "" {
		t.RefreshToken = out.RefreshToken
	}
	if out.SessionIn > 0 {
		t.Until = time.Now().Add(time.Duration(out.SessionIn) * time.Second).UTC().Truncate(time.Second)
	}
	t.Subject = subjectOf(t.AccessToken)
	return nil
}

// subjectOf reads a JWT's sub without verifying it (the server that
// issued it verifies it; this is for the status line only).
func subjectOf(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		Sub string `json:"sub"`
	}
	json.Unmarshal(payload, &claims)
	return claims.Sub
}

// Save writes the tokens to path, mode 0600, atomically.
func (t Tokens) Save(path string) error {
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, 0o600, atomicfile.Bytes(data))
}

// Load reads the tokens at path.
func Load(path string) (Tokens, error) {
	var t Tokens
	data, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("read %s: %w", path, err)
	}
	return t, nil
}

// Source returns the access token kept at path for every request,
// renewing it with the refresh token (and keeping the rotated one) when it
// expires within a minute. Renewals are serialised across processes by a
// lock beside the file.
func Source(path string, hc *http.Client) func(context.Context) (string, error) {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return func(ctx context.Context) (string, error) {
		t, err := Load(path)
		if err != nil {
			return "", err
		}
		if time.Until(t.Expiry) > renewBefore {
			return t.AccessToken, nil
		}
		lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return "", err
		}
		defer lock.Close()
		if err := filelock.Wait(lock); err != nil {
			return "", err
		}
		defer filelock.Unlock(lock)
		if t, err = Load(path); err != nil { // another process may have renewed meanwhile
			return "", err
		}
		if time.Until(t.Expiry) > renewBefore {
			return t.AccessToken, nil
		}
		if err := t.grant(ctx, hc, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken},
			"client_id": {t.ClientID}}); err != nil {
			return "", err
		}
		return t.AccessToken, t.Save(path)
	}
}
