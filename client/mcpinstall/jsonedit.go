package mcpinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// member is one member of a JSON object, by byte offsets into the document.
type member struct {
	key                            string
	keyStart, valueStart, valueEnd int
}

// object is a JSON object's span and members.
type object struct {
	open, close int // offsets of { and }
	members     []member
}

// parseObject reads the object that starts at doc[start] (after blanks).
func parseObject(doc []byte, start int) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(doc[start:]))
	tok, err := dec.Token()
	if err != nil {
		return object{}, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return object{}, errors.New("not a JSON object")
	}
	o := object{open: start + int(dec.InputOffset()) - 1}
	for dec.More() {
		before := start + int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return object{}, err
		}
		end := start + int(dec.InputOffset())
		keyStart := before + bytes.IndexByte(doc[before:], '"')
		o.members = append(o.members, member{key: key, keyStart: keyStart, valueStart: end - len(raw), valueEnd: end})
	}
	if _, err := dec.Token(); err != nil {
		return object{}, err
	}
	o.close = start + int(dec.InputOffset()) - 1
	return o, nil
}

func (o object) find(key string) (int, bool) {
	for i, m := range o.members {
		if m.key == key {
			return i, true
		}
	}
	return 0, false
}

// indentOf returns the blanks that start the line holding offset.
func indentOf(doc []byte, off int) string {
	line := doc[bytes.LastIndexByte(doc[:off], '\n')+1 : off]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// setJSON returns doc with doc[container][name] set to value (nil: removed),
// every other byte as it was. A missing or blank document is an empty
// object; a document that is not a JSON object is an error.
func setJSON(doc []byte, container, name string, value any) ([]byte, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		if value == nil {
			return doc, nil
		}
		doc = []byte("{}\n")
	}
	if !json.Valid(doc) {
		return nil, errors.New("it is not valid JSON (comments are not supported); fix it or add the server by hand")
	}
	top, err := parseObject(doc, 0)
	if err != nil {
		return nil, fmt.Errorf("it is not a JSON object: %w", err)
	}
	unit := "  "
	if len(top.members) > 0 {
		if in := indentOf(doc, top.members[0].keyStart); in != "" {
			unit = in
		}
	}
	ci, ok := top.find(container)
	if !ok {
		if value == nil {
			return doc, nil
		}
		return insertMember(doc, top, "", unit, container, map[string]any{name: value})
	}
	c := top.members[ci]
	inner, err := parseObject(doc, c.valueStart)
	if err != nil {
		return nil, fmt.Errorf("its %q is not a JSON object", container)
	}
	base := indentOf(doc, c.keyStart)
	mi, ok := inner.find(name)
	switch {
	case !ok && value == nil:
		return doc, nil
	case !ok:
		return insertMember(doc, inner, base, unit, name, value)
	case value == nil:
		return removeMember(doc, inner, mi), nil
	}
	m := inner.members[mi]
	v, err := json.MarshalIndent(value, indentOf(doc, m.keyStart), unit)
	if err != nil {
		return nil, err
	}
	return splice(doc, m.valueStart, m.valueEnd, v), nil
}

// insertMember adds "key": value as o's last member, indented one unit
// deeper than base.
func insertMember(doc []byte, o object, base, unit, key string, value any) ([]byte, error) {
	in := base + unit
	k, _ := json.Marshal(key)
	v, err := json.MarshalIndent(value, in, unit)
	if err != nil {
		return nil, err
	}
	text := "\n" + in + string(k) + ": " + string(v)
	if n := len(o.members); n > 0 {
		return splice(doc, o.members[n-1].valueEnd, o.members[n-1].valueEnd, []byte(","+text)), nil
	}
	return splice(doc, o.open+1, o.close, []byte(text+"\n"+base)), nil
}

// removeMember takes member i out of o with the comma that joined it.
func removeMember(doc []byte, o object, i int) []byte {
	m := o.members[i]
	switch {
	case len(o.members) == 1:
		return splice(doc, o.open+1, o.close, nil)
	case i == 0:
		return splice(doc, m.keyStart, o.members[1].keyStart, nil)
	}
	return splice(doc, o.members[i-1].valueEnd, m.valueEnd, nil)
}

func splice(doc []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(doc)-(to-from)+len(with))
	out = append(out, doc[:from]...)
	out = append(out, with...)
	return append(out, doc[to:]...)
}
