package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
)

// The device authorization grant (RFC 8628): its endpoint, its grant
// type, the web UI's page where the person enters the user code, and the
// lifetimes.
const (
	PathDeviceAuthorization = "/oauth/device_authorization"
	DeviceGrantType         = "urn:ietf:params:oauth:grant-type:device_code"
	// DevicePath is the web UI's verification page.
	DevicePath            = "/ui/device"
	DefaultDeviceInterval = 5 * time.Second
	deviceTTL             = 10 * time.Minute
)

var _ server.DeviceAuthorizer = (*Server)(nil)

// TakesDevices reports whether the server takes the device authorization
// grant (its store keeps devices).
func (s *Server) TakesDevices() bool { return s.o.Devices != nil }

// deviceAuthorization starts a device's sign-in: a device code the
// device polls with, a user code the person enters on the verification
// page.
func (s *Server) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	if !s.readForm(w, r, "oauth-device") {
		return
	}
	base, f := s.base(r), r.PostForm
	c, err := s.resolve(r.Context(), f.Get("client_id"))
	if err != nil {
		if errors.Is(err, server.ErrInvalid) {
			writeOAuthError(w, http.StatusBadRequest, "invalid_client", err.Error())
			return
		}
		s.o.Middleware.WriteError(w, r, err)
		return
	}
	resource := f.Get("resource")
	if resource == "" {
		resource = base
	}
	if !slices.Contains(resources(base), resource) {
		writeOAuthError(w, http.StatusBadRequest, "invalid_target", "resource must be one of "+strings.Join(resources(base), ", "))
		return
	}
	deviceCode, userCode, err := s.startDevice(r.Context(), c, resource)
	if err != nil {
		s.o.Middleware.WriteError(w, r, err)
		return
	}
	shown := server.FormatUserCode(userCode)
	writeJSON(w, http.StatusOK, map[string]any{"device_code": deviceCode, "user_code": shown,
		"verification_uri": base + DevicePath, "verification_uri_complete": base + DevicePath + "?user_code=" + shown,
		"expires_in": int(deviceTTL.Seconds()), "interval": int((s.o.DeviceInterval + time.Second - 1) / time.Second)})
}

// readForm reads the form of an endpoint that takes one, within its
// limit of requests per peer; false when it answered already.
func (s *Server) readForm(w http.ResponseWriter, r *http.Request, limit string) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenForm)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || r.ParseForm() != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "send the parameters as an application/x-www-form-urlencoded body")
		return false
	}
	if err := s.o.Middleware.Limiter.Allow(limit + " " + peer(r)); err != nil {
		s.o.Middleware.WriteError(w, r, err)
		return false
	}
	return true
}

// startDevice records a pending device authorization and returns its
// device code and user code; a user code drawn twice is drawn again.
func (s *Server) startDevice(ctx context.Context, c client, resource string) (string, string, error) {
	deviceCode, err := secret(32)
	if err != nil {
		return "", "", err
	}
	now := s.o.Now().UTC()
	d := server.DeviceAuthorization{DeviceCodeHash: hash(deviceCode), ClientID: c.ID, ClientName: c.Name, Resource: resource,
		CreatedAt: now, ExpiresAt: now.Add(deviceTTL), Interval: s.o.DeviceInterval, State: server.DevicePending}
	for range 3 {
		if d.UserCode, err = userCode(); err != nil {
			return "", "", err
		}
		if err = s.o.Devices.StartDeviceAuthorization(ctx, d); err == nil {
			return deviceCode, d.UserCode, nil
		}
	}
	return "", "", err
}

// userCode draws a user code: letters of server.UserCodeAlphabet, each
// equally likely.
func userCode() (string, error) {
	alphabet := server.UserCodeAlphabet
	out := make([]byte, 0, server.UserCodeLength)
	buf := make([]byte, 16)
	for len(out) < server.UserCodeLength {
		if _, err := rand.Read(buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) < 256/len(alphabet)*len(alphabet) && len(out) < server.UserCodeLength {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}

// pollDevice is the token endpoint's device grant: the device's poll,
// answered authorization_pending until the person decides, slow_down
// when it polls too often, and, once approved, the session's tokens (to
// one poll only).
func (s *Server) pollDevice(ctx context.Context, deviceCode, clientID string) (server.OAuthSession, string, error) {
	if deviceCode == "" {
		return server.OAuthSession{}, "", &tokenError{http.StatusBadRequest, "invalid_request", "device_code is required"}
	}
	d, err := s.o.Devices.PollDevice(ctx, hash(deviceCode), s.o.Now())
	switch {
	case errors.Is(err, server.ErrNotFound):
		return server.OAuthSession{}, "", invalidGrant("the device code is unknown")
	case errors.Is(err, server.ErrSlowDown):
		return server.OAuthSession{}, "", &tokenError{http.StatusBadRequest, "slow_down", "poll less often: the interval grows by 5 seconds"}
	case errors.Is(err, server.ErrDeviceExpired):
		return server.OAuthSession{}, "", &tokenError{http.StatusBadRequest, "expired_token", "the device code expired; start again"}
	case errors.Is(err, server.ErrDeviceCodeReused):
		return server.OAuthSession{}, "", s.spend(ctx, d.CodeHash, invalidGrant("the device code was already used; the session it started is revoked"))
	case err != nil:
		return server.OAuthSession{}, "", err
	}
	if clientID != d.ClientID {
		refusal := invalidGrant("the device code was issued to another client")
		if d.State == server.DeviceApproved {
			return server.OAuthSession{}, "", s.spend(ctx, d.CodeHash, refusal)
		}
		return server.OAuthSession{}, "", refusal
	}
	switch d.State {
	case server.DevicePending:
		return server.OAuthSession{}, "", &tokenError{http.StatusBadRequest, "authorization_pending", "the person has not answered yet"}
	case server.DeviceDenied:
		return server.OAuthSession{}, "", &tokenError{http.StatusBadRequest, "access_denied", "the person declined"}
	}
	refresh, err := secret(32)
	if err != nil {
		return server.OAuthSession{}, "", err
	}
	sess, err := s.o.Store.TakeCode(ctx, d.CodeHash, hash(refresh), s.o.Now())
	switch {
	case errors.Is(err, server.ErrNotFound):
		return sess, "", invalidGrant("the sign-in was revoked or expired; start again")
	case err != nil:
		return sess, "", err
	}
	return sess, refresh, nil
}

// spend revokes the session of an approved device authorization whose
// code hash is codeHash (its code spent, a second time if need be) and
// returns refusal.
func (s *Server) spend(ctx context.Context, codeHash string, refusal error) error {
	if codeHash == "" {
		return refusal
	}
	sess, err := s.o.Store.TakeCode(ctx, codeHash, hash(codeHash+" spent"), s.o.Now())
	if err != nil && !errors.Is(err, server.ErrCodeReused) && !errors.Is(err, server.ErrNotFound) {
		return err
	}
	return s.kill(ctx, sess.ID, refusal)
}

// Device returns the pending request of a user code
// (server.DeviceAuthorizer).
func (s *Server) Device(ctx context.Context, userCode string) (server.DeviceRequest, error) {
	d, err := s.pendingDevice(ctx, userCode)
	if err != nil {
		return server.DeviceRequest{}, err
	}
	return server.DeviceRequest{UserCode: server.FormatUserCode(d.UserCode), ClientID: d.ClientID, ClientName: d.ClientName,
		Resource: d.Resource, ExpiresAt: d.ExpiresAt}, nil
}

func (s *Server) pendingDevice(ctx context.Context, userCode string) (server.DeviceAuthorization, error) {
	if s.o.Devices == nil {
		return server.DeviceAuthorization{}, fmt.Errorf("this server does not take device sign-ins: %w", server.ErrNotFound)
	}
	code, err := server.CheckUserCode(userCode)
	if err != nil {
		return server.DeviceAuthorization{}, err
	}
	d, err := s.o.Devices.PendingDevice(ctx, code, s.o.Now())
	if errors.Is(err, server.ErrNotFound) {
		return d, fmt.Errorf("the code %s is unknown, already answered or expired; start again on the device: %w",
			server.FormatUserCode(code), server.ErrNotFound)
	}
	return d, err
}

// ApproveDevice records the consent of p to a device's request
// (server.DeviceAuthorizer): a session as p, whose code the device's next
// poll exchanges.
func (s *Server) ApproveDevice(ctx context.Context, userCode string, p server.Principal) error {
	d, err := s.pendingDevice(ctx, userCode)
	if err != nil {
		return err
	}
	sess, code, err := s.startSession(ctx, p, server.OAuthSession{ClientID: d.ClientID, ClientName: d.ClientName,
		RedirectURI: DeviceGrantType, CodeChallenge: d.DeviceCodeHash, Resource: d.Resource, CodeExpires: d.ExpiresAt})
	if err != nil {
		return err
	}
	if err := s.o.Devices.DecideDevice(ctx, d.UserCode, hash(code), s.o.Now()); err != nil {
		// Answered meanwhile (on another replica, say): the session is
		// nobody's.
		return s.kill(ctx, sess.ID, err)
	}
	return nil
}

// DenyDevice records the person's refusal (server.DeviceAuthorizer).
func (s *Server) DenyDevice(ctx context.Context, userCode string) error {
	d, err := s.pendingDevice(ctx, userCode)
	if err != nil {
		return err
	}
	return s.o.Devices.DecideDevice(ctx, d.UserCode, "", s.o.Now())
}
