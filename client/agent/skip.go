package agent

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/secrets"
)

// DefaultMaxEntryBytes is the server's default entry size limit (protocol §2).
const DefaultMaxEntryBytes = 250_000

// Reasons a local file is not pushed; a *SkipError wraps exactly one.
var (
	ErrEntryTooLarge = errors.New("larger than the entry size limit")
	ErrNotUTF8       = errors.New("not valid UTF-8")
	ErrSecretFound   = errors.New("holds a credential")
	ErrSecretInName  = errors.New("its name holds a credential")
	ErrKeyInvalid    = errors.New("not a valid key")
	ErrNotRegular    = errors.New("not a regular file")
)

// SkipError says why one local file is not pushed. Its message names the
// file (quoted, with any credential in its name redacted) and the reason,
// and for a credential the scanner's rule id, label and line, never the
// credential itself.
type SkipError struct {
	// Key is the file's slash-separated path relative to the team folder.
	// It is never shown as it is: Path redacts it.
	Key string
	// Reason is ErrEntryTooLarge, ErrNotUTF8, ErrSecretFound,
	// ErrSecretInName or ErrKeyInvalid.
	Reason error
	// Size is the file's size in bytes (for ErrEntryTooLarge).
	Size int
	// Secret is the first finding (for ErrSecretFound and ErrSecretInName).
	Secret secrets.Match
	// Detail is the key validation message (for ErrKeyInvalid).
	Detail string
}

// Error formats the key, the reason and its particulars.
func (e *SkipError) Error() string { return e.Skip().String() }

// Skip returns the error as a report's Skip: the key as Path shows it and
// the reason with its particulars.
func (e *SkipError) Skip() Skip {
	s := Skip{Path: e.Path()}
	switch e.Reason {
	case ErrEntryTooLarge:
		s.Reason = fmt.Sprintf("%v (%d bytes)", e.Reason, e.Size)
	case ErrSecretFound:
		s.Reason = fmt.Sprintf("%v: %s (rule %s) on line %d", e.Reason, e.Secret.Label, e.Secret.RuleID, e.Secret.Line)
	case ErrSecretInName:
		s.Reason = fmt.Sprintf("%v: %s (rule %s); the file stays here, unshared: rename it without the credential", e.Reason, e.Secret.Label, e.Secret.RuleID)
	case ErrKeyInvalid:
		s.Reason = fmt.Sprintf("%v: %s", e.Reason, e.Detail)
	default:
		s.Reason = fmt.Sprint(e.Reason)
	}
	return s
}

// Path is the key as it may be shown or logged: any credential in it
// replaced by secrets.Redacted.
func (e *SkipError) Path() string { return secrets.Redact(e.Key) }

// Unwrap returns the reason.
func (e *SkipError) Unwrap() error { return e.Reason }

// CheckEntry returns nil when a local file may be pushed as key, otherwise
// a *SkipError: the key holds a credential according to memcore/secrets
// (a key is stored, shown and made a file name on every teammate's disk,
// so it is scanned like content) or fails protocol.ValidateKey, the
// content exceeds maxBytes (≤ 0 means DefaultMaxEntryBytes), is not UTF-8,
// or holds a credential.
func CheckEntry(key string, content []byte, maxBytes int) error {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxEntryBytes
	}
	if found := secrets.Scan(key); len(found) > 0 {
		return &SkipError{Key: key, Reason: ErrSecretInName, Secret: found[0]}
	}
	if err := protocol.ValidateKey(key); err != nil {
		var ke *protocol.KeyError
		detail := err.Error()
		if errors.As(err, &ke) {
			detail = ke.Reason
		}
		return &SkipError{Key: key, Reason: ErrKeyInvalid, Detail: detail}
	}
	switch {
	case len(content) > maxBytes:
		return &SkipError{Key: key, Reason: ErrEntryTooLarge, Size: len(content)}
	case !utf8.Valid(content):
		return &SkipError{Key: key, Reason: ErrNotUTF8}
	}
	if found := secrets.Scan(string(content)); len(found) > 0 {
		return &SkipError{Key: key, Reason: ErrSecretFound, Secret: found[0]}
	}
	return nil
}

// skipNew notes that the scan found s (in skipsNow) and reports whether it
// is to be said: the file was not skipped, or skipped for another reason
// or with other content, when the last cycle scanned the folder. A file
// that may not be pushed is so said once per change, not every cycle.
func (e *Engine) skipNew(s *SkipError) bool {
	said := s.Skip().String()
	if f := e.local.files[s.Key]; f != nil {
		said += fmt.Sprintf("\x00%s\x00%d", f.checksum, f.id.size)
	}
	e.skipsNow[s.Key] = said
	return e.skipsSaid[s.Key] != said
}
