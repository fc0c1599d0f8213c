package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/teammem/teammem/server"
)

// readBody reads the whole request body, at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &errRequestTooLarge{limit: limit}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, &errRequestTooLarge{limit: limit}
		}
		return nil, server.InvalidBody("the request body could not be read: %v", err)
	}
	return body, nil
}

// putBody is the PUT body as decoded; each entry's content stays raw until
// checked, and pointers catch JSON nulls.
type putBody struct {
	Entries        map[string]json.RawMessage `json:"entries"`
	SoftDeleteKeys []*string                  `json:"soft_delete_keys"`
}

// decodePut parses and checks a PUT body. Unknown fields are ignored;
// anything else malformed is an ErrInvalid RequestError. An entry whose
// content is not UTF-8 text (invalid bytes, a lone surrogate escape that
// encoding/json would silently turn into U+FFFD) is listed in BadContent for
// the Service to skip, so one bad file does not refuse the whole push.
func decodePut(body []byte) (server.PutInput, error) {
	if first := firstNonSpace(body); first != '{' {
		return server.PutInput{}, server.InvalidBody("the body must be a JSON object such as {\"entries\": {...}, \"soft_delete_keys\": [...]}")
	}
	var b putBody
	if err := json.Unmarshal(body, &b); err != nil {
		return server.PutInput{}, describeJSONError(err)
	}
	in := server.PutInput{Entries: make(map[string]string, len(b.Entries)), Deletes: make([]string, 0, len(b.SoftDeleteKeys))}
	for k, raw := range b.Entries {
		if !utf8.Valid(raw) || hasLoneSurrogate(raw) {
			in.Entries[k] = ""
			in.BadContent = append(in.BadContent, k)
			continue
		}
		var v *string
		if err := json.Unmarshal(raw, &v); err != nil {
			return server.PutInput{}, server.InvalidBody("entries[%q] must be a string", truncate(k))
		}
		if v == nil {
			return server.PutInput{}, server.InvalidBody("entries[%q] is null; an entry's content must be a string (use soft_delete_keys to delete)", truncate(k))
		}
		in.Entries[k] = *v
	}
	for i, k := range b.SoftDeleteKeys {
		if k == nil {
			return server.PutInput{}, server.InvalidBody("soft_delete_keys[%d] is null; it must be a key string", i)
		}
		in.Deletes = append(in.Deletes, *k)
	}
	return in, nil
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

// describeJSONError turns a decoding error into a message naming the field.
func describeJSONError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "the body"
		}
		return server.InvalidBody("%s has the wrong type: got JSON %s, want %s", field, typeErr.Value, jsonTypeName(typeErr.Type.String()))
	case errors.As(err, &syntaxErr):
		return server.InvalidBody("the body is not valid JSON (at byte %d: %v)", syntaxErr.Offset, syntaxErr)
	}
	return server.InvalidBody("the body is not valid JSON: %v", err)
}

func jsonTypeName(goType string) string {
	switch goType {
	case "string", "*string":
		return "a string"
	case "map[string]*string":
		return "an object of strings"
	case "[]*string":
		return "an array of strings"
	}
	return fmt.Sprintf("a %s", goType)
}

// hasLoneSurrogate reports whether a JSON text holds a \u escape of a UTF-16
// surrogate that is not part of a valid pair; encoding/json would silently
// turn it into U+FFFD, changing the content.
func hasLoneSurrogate(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 >= len(b) {
			return false
		}
		if b[i+1] != 'u' {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		r, ok := hex4(b, i+2)
		if !ok {
			return false // a syntax error the decoder reports
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+11 >= len(b) || b[i+6] != '\\' || b[i+7] != 'u' {
				return true
			}
			lo, ok := hex4(b, i+8)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
			continue
		}
		i += 5
	}
	return false
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
