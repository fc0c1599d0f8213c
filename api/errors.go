package api

// Error types of the envelope (protocol §5).
const (
	TypeInvalidRequest = "invalid_request_error" // 400, 413, 415, 421, 431, 501
	TypeAuthentication = "authentication_error"  // 401
	TypePermission     = "permission_error"      // 403
	TypeNotFound       = "not_found_error"       // 404
	TypeConflict       = "conflict"              // 409, 412
	TypeRateLimit      = "rate_limit_error"      // 429
	TypeAPI            = "api_error"             // 500, 503
)

// Error codes carried in details.error_code.
const (
	CodeInvalidRepo       = "invalid_repo"
	CodeInvalidKey        = "invalid_key"
	CodeInvalidContent    = "invalid_content"
	CodeInvalidBody       = "invalid_body"
	CodeInvalidParameter  = "invalid_parameter"
	CodeInvalidHeader     = "invalid_header"
	CodeKeyBothPutDeleted = "key_put_and_deleted"
	CodeEntryTooLarge     = "team_memory_entry_too_large"
	CodeTooManyEntries    = "team_memory_too_many_entries"
	CodeRequestTooLarge   = "request_too_large"
	CodeRepoTooLarge      = "team_memory_repo_too_large"
	CodeSecretDetected    = "secret_detected"
	CodeKeyCollision      = "key_collision"
	CodeMergeConflict     = "merge_conflict"   // an approval whose keys moved and do not merge
	CodeProposalDecided   = "proposal_decided" // a decision on a proposal no longer open
	CodeETagMismatch      = "etag_mismatch"
	CodeSinceTooOld       = "since_too_old"
	CodeNotFound          = "not_found"
	CodeUnauthenticated   = "unauthenticated"
	CodeForbidden         = "forbidden"
	CodeRateLimited       = "rate_limited"
	CodeTooManyStreams    = "too_many_streams"
	CodeUnavailable       = "unavailable"
	CodeNotImplemented    = "not_implemented"
	CodeInternal          = "internal"
	CodeMethodNotAllowed  = "method_not_allowed"
	CodeCanceled          = "canceled"
	// Requests a browser was made to send: addressed to a name the server
	// does not answer to (421), from a page of another origin (403), a
	// POST of a form's or text/plain's Content-Type (415).
	CodeMisdirectedRequest   = "misdirected_request"
	CodeCrossSite            = "cross_site_request"
	CodeUnsupportedMediaType = "unsupported_media_type"
	// Refusals net/http makes before any handler runs (answered as
	// envelopes by router.JSONErrors).
	CodeUnsupportedTransferEncoding = "unsupported_transfer_encoding"
	CodeHeadersTooLarge             = "request_headers_too_large"
	CodeMalformedRequest            = "malformed_request"
)

// Reasons in details.reason of the two 413s that carry no error_code
// (protocol §4): the stock client clears its "stop pushing" state after a
// local delete only for a code-less 413 or team_memory_too_many_entries.
const (
	ReasonRepoTooLarge    = "repo_too_large"    // with details.max_bytes and details.bytes
	ReasonRequestTooLarge = "request_too_large" // with details.max_bytes
)

// ErrorEnvelope is the body of every error response:
// {"error": {"type", "message", "details": {"error_code", ...}}}.
type ErrorEnvelope struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is the inner object of ErrorEnvelope. Details holds
// "error_code" (all but the two code-less 413s, which hold "reason") and,
// depending on the code, more fields (for example
// "checksum" for etag_mismatch, "max_entries" and "received_entries" for
// team_memory_too_many_entries, "key", "rule_id" and "label" for
// secret_detected, "request_id" for every error).
type ErrorBody struct {
	Type    string         `json:"type"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// Code returns details.error_code, or "" when absent.
func (b ErrorBody) Code() string {
	s, _ := b.Details["error_code"].(string)
	return s
}
