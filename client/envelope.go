package client

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/teammem/teammem/api"
)

// maxRetryAfter bounds a Retry-After so a hostile value cannot stall a caller
// for ever or overflow a Duration.
const maxRetryAfter = 24 * time.Hour

// maxMessageBytes bounds the message taken from a body that is not an envelope.
const maxMessageBytes = 200

// defaultTypes gives the envelope type of a status when the body has none.
var defaultTypes = map[int]string{
	http.StatusBadRequest:            api.TypeInvalidRequest,
	http.StatusRequestEntityTooLarge: api.TypeInvalidRequest,
	http.StatusUnprocessableEntity:   api.TypeInvalidRequest,
	http.StatusUnauthorized:          api.TypeAuthentication,
	http.StatusForbidden:             api.TypePermission,
	http.StatusNotFound:              api.TypeNotFound,
	http.StatusConflict:              api.TypeConflict,
	http.StatusPreconditionFailed:    api.TypeConflict,
	http.StatusTooManyRequests:       api.TypeRateLimit,
}

// newAPIError builds the APIError of a non-2xx response whose (possibly
// truncated) body is body. It never fails: whatever part of the envelope
// decodes is used, the rest comes from the status.
func newAPIError(resp *http.Response, body []byte, now time.Time) *APIError {
	e := &APIError{Status: resp.StatusCode}
	decodeEnvelope(body, e)
	if e.Type == "" {
		e.Type = defaultType(resp.StatusCode)
	}
	if e.Message == "" {
		e.Message = fallbackMessage(resp.StatusCode, body)
	}
	if e.Code == "" {
		e.Code = e.DetailString("error_code")
	}
	if e.RequestID = e.DetailString("request_id"); e.RequestID == "" {
		e.RequestID = resp.Header.Get(api.HeaderRequestID)
	}
	e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
	return e
}

// decodeEnvelope fills e's Type, Message and Details from body, field by
// field, ignoring any that is missing or of the wrong type. A bare string
// "error" (as in /readyz's {"status","error"}) becomes the message.
func decodeEnvelope(body []byte, e *APIError) {
	var outer struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &outer) != nil || len(outer.Error) == 0 {
		return
	}
	if decodeInto(outer.Error, &e.Message) {
		return
	}
	var inner struct {
		Type, Message, Details json.RawMessage
	}
	if json.Unmarshal(outer.Error, &inner) != nil {
		return
	}
	decodeInto(inner.Type, &e.Type)
	decodeInto(inner.Message, &e.Message)
	decodeInto(inner.Details, &e.Details)
}

// decodeInto decodes raw into v with numbers as json.Number, reporting
// success; v is left untouched on failure.
func decodeInto[T any](raw json.RawMessage, v *T) bool {
	if len(raw) == 0 {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tmp T
	if dec.Decode(&tmp) != nil {
		return false
	}
	*v = tmp
	return true
}

// defaultType returns the envelope type protocol §5 gives status.
func defaultType(status int) string {
	if t, ok := defaultTypes[status]; ok {
		return t
	}
	if status >= 500 {
		return api.TypeAPI
	}
	return "http_error"
}

// fallbackMessage describes a response without a usable message: the status
// text, plus the start of a plain-text body when it is printable.
func fallbackMessage(status int, body []byte) string {
	msg := strconv.Itoa(status) + " " + http.StatusText(status)
	snippet := strings.TrimSpace(string(body))
	if snippet == "" || strings.HasPrefix(snippet, "{") || strings.HasPrefix(snippet, "<") {
		return msg
	}
	if len(snippet) > maxMessageBytes {
		snippet = snippet[:maxMessageBytes] + "…"
	}
	return msg + ": " + strings.Map(printable, snippet)
}

// printable replaces control and invalid characters with a space.
func printable(r rune) rune {
	if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
		return ' '
	}
	return r
}

// parseRetryAfter reads a Retry-After value in seconds or as an HTTP date,
// relative to now, clamped to [0, maxRetryAfter]; 0 when absent or invalid.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		d = time.Duration(min(max(secs, 0), int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// DetailString returns details[name] when it is a string, else "".
func (e *APIError) DetailString(name string) string {
	s, _ := e.Details[name].(string)
	return s
}

// DetailInt returns details[name] when it is an integer number.
func (e *APIError) DetailInt(name string) (int64, bool) {
	switch v := e.Details[name].(type) {
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	case float64:
		return int64(v), v == float64(int64(v))
	}
	return 0, false
}
