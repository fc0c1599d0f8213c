package server

import (
	"context"
	"errors"
	"strings"
	"time"
)

// DeviceAuthorization is a device's request to sign in (RFC 8628): a
// device without a browser of its own (an agent over SSH) shows the person
// a user code, which they enter on the web UI and consent to, while the
// device polls the token endpoint with its device code.
type DeviceAuthorization struct {
	// DeviceCodeHash is the SHA-256 hash (hex) of the device code the
	// device polls with; the code itself is never kept.
	DeviceCodeHash string
	// UserCode is the code the person enters, normalized (CheckUserCode).
	UserCode   string
	ClientID   string
	ClientName string
	Resource   string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	// Interval is the least time between two polls; a poll sooner is told
	// to slow down, and the interval grows by five seconds.
	Interval     time.Duration
	LastPolledAt time.Time
	State        DeviceState
	// CodeHash is, once approved, the hash of the authorization code of
	// the session the person's consent started; the device's poll
	// exchanges it.
	CodeHash string
}

// DeviceState is where a device authorization stands.
type DeviceState string

// The states of a device authorization.
const (
	DevicePending  DeviceState = "pending"  // waiting for the person
	DeviceApproved DeviceState = "approved" // consented, not yet polled
	DeviceDenied   DeviceState = "denied"   // the person refused
	DeviceTaken    DeviceState = "taken"    // the device received its tokens
)

// Errors of a device poll, beside ErrNotFound (an unknown device code).
var (
	// ErrSlowDown is a poll sooner than the interval after the last one.
	ErrSlowDown = errors.New("polled sooner than the interval allows")
	// ErrDeviceExpired is a poll after the device authorization expired.
	ErrDeviceExpired = errors.New("the device authorization expired")
	// ErrDeviceCodeReused is a poll with a device code that already
	// received its tokens.
	ErrDeviceCodeReused = errors.New("the device code was already used")
)

// UserCodeAlphabet is the user code's alphabet: consonants only, so no
// word is spelt and no letter looks like a digit (RFC 8628 6.1).
const UserCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

// UserCodeLength is the number of letters of a user code.
const UserCodeLength = 8

// CheckUserCode normalizes a user code as a person may type it (lower
// case, a dash or spaces between the halves) and reports one that cannot
// be a user code.
func CheckUserCode(s string) (string, error) {
	code := strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(s)))
	if len(code) != UserCodeLength || strings.Trim(code, UserCodeAlphabet) != "" {
		return "", InvalidParameter("%.20q is not a code this server shows (%d letters, as XXXX-XXXX)", s, UserCodeLength)
	}
	return code, nil
}

// FormatUserCode writes a normalized user code as people read it,
// XXXX-XXXX.
func FormatUserCode(code string) string {
	if len(code) != UserCodeLength {
		return code
	}
	return code[:UserCodeLength/2] + "-" + code[UserCodeLength/2:]
}

// DeviceStore keeps device authorizations in the store every replica
// shares. Every method is safe for concurrent use; DecideDevice and
// PollDevice are atomic across replicas.
type DeviceStore interface {
	// StartDeviceAuthorization records a pending device authorization
	// (an error when its user code is a live one's: the caller draws another).
	StartDeviceAuthorization(ctx context.Context, d DeviceAuthorization) error
	// PendingDevice returns the pending device authorization of a user
	// code; ErrNotFound when there is none, or it was decided or expired
	// at now.
	PendingDevice(ctx context.Context, userCode string, now time.Time) (DeviceAuthorization, error)
	// DecideDevice records the person's answer to a pending device
	// authorization: approved with the hash of its session's
	// authorization code, or denied when codeHash is "". ErrNotFound
	// when the user code is not pending at now.
	DecideDevice(ctx context.Context, userCode, codeHash string, now time.Time) error
	// PollDevice records a poll of the device code with hash
	// deviceCodeHash at now and returns its authorization as it stood.
	// An approved one is taken by this poll (its CodeHash is then the
	// device's to exchange). An unknown device code is ErrNotFound; one
	// taken before ErrDeviceCodeReused; an expired one ErrDeviceExpired;
	// a poll sooner than the interval after the last one ErrSlowDown (the
	// interval then grows by five seconds).
	PollDevice(ctx context.Context, deviceCodeHash string, now time.Time) (DeviceAuthorization, error)
}

// slowDownStep is how much the interval grows at each poll too soon.
const slowDownStep = 5 * time.Second

// Poll is a poll of d at now, as both stores run it inside their
// transaction: the authorization as it is to be kept, and the poll's
// outcome (nil, ErrSlowDown, ErrDeviceExpired or ErrDeviceCodeReused).
// The kept authorization is to be written when the outcome is nil or
// ErrSlowDown.
func (d DeviceAuthorization) Poll(now time.Time) (DeviceAuthorization, error) {
	next := d
	switch {
	case d.State == DeviceTaken:
		return d, ErrDeviceCodeReused
	case !now.Before(d.ExpiresAt):
		return d, ErrDeviceExpired
	case !d.LastPolledAt.IsZero() && now.Before(d.LastPolledAt.Add(d.Interval)):
		next.Interval += slowDownStep
		next.LastPolledAt = now
		return next, ErrSlowDown
	}
	next.LastPolledAt = now
	if d.State == DeviceApproved {
		next.State = DeviceTaken
	}
	return next, nil
}
