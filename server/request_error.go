package server

import (
	"errors"
	"fmt"
)

// Reason tells why a request was refused; the HTTP layer maps each to its
// error_code.
type Reason string

// Reasons for refusing a request.
const (
	ReasonInvalidRepo      Reason = "invalid_repo"
	ReasonInvalidKey       Reason = "invalid_key"
	ReasonInvalidContent   Reason = "invalid_content"
	ReasonInvalidBody      Reason = "invalid_body"
	ReasonInvalidParameter Reason = "invalid_parameter"
	ReasonPutAndDelete     Reason = "key_put_and_deleted"
	ReasonEntryTooLarge    Reason = "entry_too_large"
	ReasonSecretDetected   Reason = "secret_detected"
	// ReasonKeyCollision is a new key equal to another after case folding.
	ReasonKeyCollision Reason = "key_collision"
	// ReasonInvalidHeader is a header a writer says of itself in a shape
	// the server does not keep (Teammem-Machine, Teammem-Commit,
	// Teammem-Surface).
	ReasonInvalidHeader Reason = "invalid_header"
)

// RequestError is a request refused for its content. Kind is ErrInvalid;
// Details carries what the client needs to act (the offending key) and never
// an entry's content.
type RequestError struct {
	Kind    error
	Reason  Reason
	Message string
	Details map[string]any
}

func (e *RequestError) Error() string { return e.Message }

// Unwrap returns the kind, so errors.Is(err, ErrInvalid) and friends hold.
func (e *RequestError) Unwrap() error { return e.Kind }

// invalidf builds an ErrInvalid RequestError.
func invalidf(reason Reason, format string, a ...any) *RequestError {
	return &RequestError{Kind: ErrInvalid, Reason: reason, Message: fmt.Sprintf(format, a...)}
}

// InvalidBody reports a malformed request body (used by the HTTP layer).
func InvalidBody(format string, a ...any) error { return invalidf(ReasonInvalidBody, format, a...) }

// InvalidParameter reports a malformed query parameter (used by the HTTP layer).
func InvalidParameter(format string, a ...any) error {
	return invalidf(ReasonInvalidParameter, format, a...)
}

// InvalidHeader reports a header in a shape the server does not keep
// (used by the HTTP layer).
func InvalidHeader(format string, a ...any) error { return invalidf(ReasonInvalidHeader, format, a...) }

// InvalidContent reports content that is not valid UTF-8.
func InvalidContent(key string) error {
	e := invalidf(ReasonInvalidContent, "entry %q is not valid UTF-8 text (or holds a NUL character)", key)
	if key == "" {
		e.Message = "the request holds content that is not valid UTF-8 text"
	} else {
		e.Details = map[string]any{"key": key}
	}
	return e
}

// ForbiddenError is an authenticated caller without the permission needed.
type ForbiddenError struct {
	Subject string
	Repo    string
	Need    Perm
	Why     string // when set, what the grant does not allow, in words
}

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("token %q has no %s grant for repository %q", e.Subject, e.Need, e.Repo)
}

// Unwrap makes errors.Is(err, ErrForbidden) hold.
func (e *ForbiddenError) Unwrap() error { return ErrForbidden }

// IsClientError reports whether err is the caller's fault (not logged as a
// server failure).
func IsClientError(err error) bool {
	for _, k := range []error{ErrInvalid, ErrNotFound, ErrPreconditionFailed,
		ErrTooManyEntries, ErrRepoTooLarge, ErrKeyCollision, ErrSinceTooOld, ErrUnauthenticated, ErrForbidden, ErrConflict} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
