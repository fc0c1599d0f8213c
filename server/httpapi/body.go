package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// readBody reads the whole request body, at most limit bytes, into one
// buffer of the announced Content-Length when there is one.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &httpkit.RequestTooLargeError{Limit: limit}
	}
	var b bytes.Buffer
	if r.ContentLength > 0 {
		b.Grow(int(r.ContentLength) + bytes.MinRead) // ReadFrom wants MinRead spare to see EOF without growing
	}
	_, err := b.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	body := b.Bytes()
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, &httpkit.RequestTooLargeError{Limit: limit}
		}
		return nil, server.InvalidBody("the request body could not be read: %v", err)
	}
	return body, nil
}

// decodePut parses and checks a PUT body in one pass over it. Unknown
// fields are ignored (any valid JSON value) and the two known ones are
// matched without regard to case, as encoding/json matches struct fields;
// anything else malformed is an ErrInvalid RequestError. An entry whose
// content is not UTF-8 text (invalid bytes, a lone surrogate escape that
// a decoder would silently turn into U+FFFD) is put in BadContent for the
// Service to skip, so one bad file does not refuse the whole push. Entries
// naming more distinct keys than limits allows are a TooManyEntriesError:
// past the limit the decoder only counts keys, unquoting no more content.
// The cost is linear in the body's size.
func decodePut(body []byte, limits server.Limits) (server.PutInput, error) {
	if first := firstNonSpace(body); first != '{' {
		return server.PutInput{}, server.InvalidBody("the body must be a JSON object such as {\"entries\": {...}, \"soft_delete_keys\": [...]}")
	}
	d := jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	var in server.PutInput
	if _, err := d.ReadToken(); err != nil { // the '{' seen above
		return server.PutInput{}, describeJSONError(err)
	}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return server.PutInput{}, describeJSONError(err)
		}
		switch field := name.String(); {
		case strings.EqualFold(field, "entries"):
			err = decodeEntries(d, &in, limits)
		case strings.EqualFold(field, "soft_delete_keys"):
			err = decodeDeletes(d, &in)
		case strings.EqualFold(field, "all_or_nothing"):
			err = decodeAllOrNothing(d, &in)
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return server.PutInput{}, describeJSONError(err)
		}
	}
	if _, err := d.ReadToken(); err != nil { // '}', or the error PeekKind met
		return server.PutInput{}, describeJSONError(err)
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			return server.PutInput{}, server.InvalidBody("the body is not valid JSON (at byte %d: data after the top-level object)", d.InputOffset())
		}
		return server.PutInput{}, describeJSONError(err)
	}
	if in.Entries == nil {
		in.Entries = map[string]string{}
	}
	if in.Deletes == nil {
		in.Deletes = []string{}
	}
	return in, nil
}

// decodeEntries reads the entries object (or null) into in.Entries; a key
// repeated in the body takes its last value. Once the entries name more
// distinct keys than the limit, the rest are only counted (their values
// skipped) and the result is the count's TooManyEntriesError.
func decodeEntries(d *jsontext.Decoder, in *server.PutInput, limits server.Limits) error {
	if open, err := openField(d, "entries", '{', "an object of strings"); !open {
		return err
	}
	if in.Entries == nil {
		in.Entries = map[string]string{}
	}
	var buf []byte
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return err
		}
		k := name.String()
		if _, seen := in.Entries[k]; !seen && limits.CheckEntryCount(len(in.Entries)+1) != nil {
			return countEntries(d, in, limits)
		}
		raw, err := d.ReadValue()
		if err != nil {
			return err
		}
		delete(in.BadContent, k) // a later duplicate of a refused entry replaces it
		switch raw.Kind() {
		case '"':
		case 'n':
			return server.InvalidBody("entries[%q] is null; an entry's content must be a string (use soft_delete_keys to delete)", truncate(k))
		default:
			return server.InvalidBody("entries[%q] must be a string", truncate(k))
		}
		// The syntax was checked by ReadValue: unquoting fails only on
		// content that is not UTF-8 or holds a lone UTF-16 surrogate
		// escape (which encoding/json would turn into U+FFFD, changing it).
		if buf, err = jsontext.AppendUnquote(buf[:0], raw); err != nil {
			in.Entries[k] = ""
			if in.BadContent == nil {
				in.BadContent = map[string]bool{}
			}
			in.BadContent[k] = true
			continue
		}
		in.Entries[k] = string(buf)
	}
	_, err := d.ReadToken()
	return err
}

// countEntries reads the rest of an entries object that is over the limit
// (its first key past it already read): further keys are only counted, not
// stored (a repeat counted again), their values skipped, and the result is
// the TooManyEntriesError for that count, or a syntax error.
func countEntries(d *jsontext.Decoder, in *server.PutInput, limits server.Limits) error {
	n := len(in.Entries) + 1
	for {
		if err := d.SkipValue(); err != nil {
			return err
		}
		if d.PeekKind() == '}' {
			break
		}
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		n++
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	return limits.CheckEntryCount(n)
}

// decodeDeletes reads the soft_delete_keys array (or null) into in.Deletes;
// a repeated field takes its last value.
func decodeDeletes(d *jsontext.Decoder, in *server.PutInput) error {
	if open, err := openField(d, "soft_delete_keys", '[', "an array of strings"); !open {
		return err
	}
	in.Deletes = in.Deletes[:0]
	for i := 0; d.PeekKind() != ']'; i++ {
		switch k := d.PeekKind(); k {
		case '"':
			tok, err := d.ReadToken()
			if err != nil {
				return err
			}
			in.Deletes = append(in.Deletes, tok.String())
			continue
		case 'n':
			return server.InvalidBody("soft_delete_keys[%d] is null; it must be a key string", i)
		default:
			if _, err := d.ReadValue(); err != nil {
				return err
			}
			return server.InvalidBody("soft_delete_keys[%d] must be a key string, got JSON %s", i, kindName(k))
		}
	}
	_, err := d.ReadToken()
	return err
}

// decodeAllOrNothing reads the all_or_nothing member (a boolean, or null
// for false) into in.AllOrNothing.
func decodeAllOrNothing(d *jsontext.Decoder, in *server.PutInput) error {
	switch k := d.PeekKind(); k {
	case 't', 'f', 'n':
		tok, err := d.ReadToken()
		in.AllOrNothing = err == nil && k == 't' && tok.Bool()
		return err
	default:
		if _, err := d.ReadValue(); err != nil {
			return err
		}
		return server.InvalidBody("all_or_nothing has the wrong type: got JSON %s, want a boolean", kindName(k))
	}
}

// openField reads the start of a known field's object or array (kind
// want) and reports true; for null it reads the null and reports false, as
// it does with the error for any other value.
func openField(d *jsontext.Decoder, field string, want jsontext.Kind, wantName string) (bool, error) {
	switch k := d.PeekKind(); k {
	case want:
		_, err := d.ReadToken()
		return err == nil, err
	case 'n':
		return false, d.SkipValue()
	default:
		if _, err := d.ReadValue(); err != nil {
			return false, err
		}
		return false, server.InvalidBody("%s has the wrong type: got JSON %s, want %s", field, kindName(k), wantName)
	}
}

// kindName names a JSON kind for a message.
func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return k.String()
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// describeJSONError turns a decoding error into a message with the byte
// offset where the body stops being valid JSON; an error that already is a
// RequestError or a TooManyEntriesError passes through.
func describeJSONError(err error) error {
	var re *server.RequestError
	var tooMany *server.TooManyEntriesError
	var syntaxErr *jsontext.SyntacticError
	switch {
	case errors.As(err, &re), errors.As(err, &tooMany):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return server.InvalidBody("the body is not valid JSON: it ends before the object does")
	case errors.As(err, &syntaxErr):
		return server.InvalidBody("the body is not valid JSON (at byte %d: %v)", syntaxErr.ByteOffset, syntaxErr.Err)
	}
	return server.InvalidBody("the body is not valid JSON: %v", err)
}
