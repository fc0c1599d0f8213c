package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/teammem/teammem/server"
)

// putBodyBodies are PUT bodies decodePut must read as encoding/json reads
// them (accepted or refused alike, same entries and deletions).
var putBodyBodies = []string{
	`{}`,
	` {"entries":{"a.md":"x"}} `,
	`{"entries":{"a.md":"line\nnext \"quoted\" \\ \/ \t \u00e9 \ud83d\ude00"},"soft_delete_keys":["b.md"]}`,
	`{"entries":{"a.md":"x","a.md":"y"}}`,
	`{"entries":{"a.md":"x"},"entries":{"b.md":"y"}}`,
	`{"soft_delete_keys":["a.md"],"soft_delete_keys":["b.md","c.md"]}`,
	`{"ENTRIES":{"a.md":"x"},"Soft_Delete_Keys":["b.md"]}`,
	`{"entries":null,"soft_delete_keys":null}`,
	`{"future":{"nested":[1,2.5e3,-0,true,false,null,"s",{"k":[]}]},"entries":{"a.md":""}}`,
	`{"entries":{}, "soft_delete_keys":[]}`,
	`{"entries":{"a.md":"x"}} {}`,
	`{"entries":{"a.md":"x"}`,
	`{"entries":{"a.md":"x"},}`,
	`{"entries":{"a.md":"x",}}`,
	`{"entries":["a.md"]}`,
	`{"entries":"a.md"}`,
	`{"entries":{"a.md":42}}`,
	`{"entries":{"a.md":{"content":"x"}}}`,
	`{"entries":{"a.md":null}}`,
	`{"soft_delete_keys":"a.md"}`,
	`{"soft_delete_keys":[1,2]}`,
	`{"soft_delete_keys":[["a.md"]]}`,
	`{"soft_delete_keys":[null]}`,
	`{"entries":{"a.md":"x"},"all_or_nothing":true}`,
	`{"All_Or_Nothing":true,"all_or_nothing":false}`,
	`{"all_or_nothing":null}`,
	`{"all_or_nothing":1}`,
	`{"all_or_nothing":"true"}`,
	`{"x":01}`,
	`{"x":tru}`,
	`{"x":"\q"}`,
	`{"x" "y"}`,
	`{'entries':{}}`,
	`[]`, `null`, `"x"`, ``, `   `, `{`,
	`{"entries":{"a.md":"x"}}` + "\x00",
	`{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `,"entries":{"a.md":"x"}}`,
}

// referencePut decodes body with encoding/json, as decodePut did before it
// read the body in one pass: ok reports whether the body is accepted.
func referencePut(body []byte) (entries map[string]string, deletes []string, all, ok bool) {
	var ref struct {
		Entries        map[string]*string `json:"entries"`
		SoftDeleteKeys []*string          `json:"soft_delete_keys"`
		AllOrNothing   *bool              `json:"all_or_nothing"`
	}
	if firstNonSpace(body) != '{' || json.Unmarshal(body, &ref) != nil {
		return nil, nil, false, false
	}
	entries = map[string]string{}
	for k, v := range ref.Entries {
		if v == nil {
			return nil, nil, false, false
		}
		entries[k] = *v
	}
	deletes = []string{}
	for _, k := range ref.SoftDeleteKeys {
		if k == nil {
			return nil, nil, false, false
		}
		deletes = append(deletes, *k)
	}
	return entries, deletes, ref.AllOrNothing != nil && *ref.AllOrNothing, true
}

// checkDecodePut compares decodePut with encoding/json on a body that is
// valid UTF-8 without surrogate escapes (where encoding/json would mangle
// content that decodePut sets aside as BadContent instead).
func checkDecodePut(t *testing.T, body []byte) {
	t.Helper()
	in, err := decodePut(body, server.Limits{})
	var re *server.RequestError
	if err != nil && !errors.As(err, &re) {
		t.Fatalf("decodePut(%q): error %v is not a RequestError", body, err)
	}
	if err != nil && !errors.Is(err, server.ErrInvalid) {
		t.Fatalf("decodePut(%q): error %v is not ErrInvalid", body, err)
	}
	if !utf8.Valid(body) || strings.Contains(strings.ToLower(string(body)), `\ud`) {
		return
	}
	entries, deletes, all, ok := referencePut(body)
	switch {
	case ok != (err == nil):
		t.Fatalf("decodePut(%q) error = %v; encoding/json accepts it: %v", body, err, ok)
	case !ok:
		return
	case len(in.BadContent) > 0:
		t.Fatalf("decodePut(%q): bad content %q in a valid body", body, slices.Sorted(maps.Keys(in.BadContent)))
	case fmt.Sprint(in.Entries) != fmt.Sprint(entries) || !slices.Equal(in.Deletes, deletes) || in.AllOrNothing != all:
		t.Fatalf("decodePut(%q) = %q, %q, %v; encoding/json: %q, %q, %v", body, in.Entries, in.Deletes, in.AllOrNothing, entries, deletes, all)
	}
}

func TestDecodePutMatchesEncodingJSON(t *testing.T) {
	for _, body := range putBodyBodies {
		checkDecodePut(t, []byte(body))
	}
}

// TestDecodePutBadContent: content that is not UTF-8 text is set aside
// (empty, listed once in BadContent) while the rest of the body applies;
// a later duplicate of the key with good content takes its place.
func TestDecodePutBadContent(t *testing.T) {
	for body, want := range map[string][]string{
		"{\"entries\":{\"a.md\":\"\xff\",\"b.md\":\"ok\"}}":         {"a.md"},
		`{"entries":{"a.md":"\ud800","b.md":"\ud83d\ude00"}}`:       {"a.md"},
		`{"entries":{"a.md":"x\udc00y","b.md":"\\ud800"}}`:          {"a.md"},
		`{"entries":{"a.md":"\ud800\u0041"}}`:                       {"a.md"},
		`{"entries":{"a.md":"\ud800","a.md":"fine"}}`:               nil,
		`{"entries":{"a.md":"fine","a.md":"\udfff"}}`:               {"a.md"},
		"{\"entries\":{\"a.md\":\"\xc3\",\"c.md\":\"\xe2\x82\"}}":   {"a.md", "c.md"},
		`{"entries":{"a.md":"\ud800"},"soft_delete_keys":["z.md"]}`: {"a.md"},
	} {
		in, err := decodePut([]byte(body), server.Limits{})
		if err != nil {
			t.Errorf("decodePut(%q): %v", body, err)
			continue
		}
		if got := slices.Sorted(maps.Keys(in.BadContent)); !slices.Equal(got, want) {
			t.Errorf("decodePut(%q) bad content = %q, want %q", body, got, want)
		}
		for k := range in.BadContent {
			if in.Entries[k] != "" {
				t.Errorf("decodePut(%q): bad %s kept content %q", body, k, in.Entries[k])
			}
		}
		if got := in.Entries["b.md"]; strings.Contains(body, `"b.md":"ok"`) && got != "ok" {
			t.Errorf("decodePut(%q): b.md = %q", body, got)
		}
	}
}

// TestDecodePutEntryCount: entries naming more distinct keys than the limit
// are refused as a TooManyEntriesError counting every key from the first
// past the limit on (a repeat before it once), whatever their content; at the limit the body decodes, bad
// content and all.
func TestDecodePutEntryCount(t *testing.T) {
	limits := server.Limits{MaxEntries: 3}
	body := func(keys ...string) []byte {
		var b strings.Builder
		b.WriteString(`{"entries":{`)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:\"\xff\"", k)
		}
		b.WriteString(`},"soft_delete_keys":["z.md"]}`)
		return []byte(b.String())
	}
	in, err := decodePut(body("a.md", "b.md", "c.md", "a.md"), limits)
	if err != nil || len(in.Entries) != 3 || len(in.BadContent) != 3 || !slices.Equal(in.Deletes, []string{"z.md"}) {
		t.Fatalf("decodePut at the limit = %q, %v, %v", in.Entries, in.BadContent, err)
	}
	for _, tt := range []struct {
		keys     []string
		received int
	}{
		{[]string{"a.md", "b.md", "c.md", "d.md"}, 4},
		{[]string{"a.md", "a.md", "b.md", "c.md", "d.md", "d.md", "e.md"}, 6},
	} {
		_, err := decodePut(body(tt.keys...), limits)
		var tooMany *server.TooManyEntriesError
		if !errors.As(err, &tooMany) || tooMany.Max != 3 || tooMany.Received != tt.received {
			t.Errorf("decodePut(%q) = %v; want a TooManyEntriesError with Max 3, Received %d", tt.keys, err, tt.received)
		}
	}
	// Past the limit the values are only skipped, but still checked as JSON.
	if _, err := decodePut([]byte(`{"entries":{"a":"","b":"","c":"","d":"","e":tru}}`), limits); !errors.Is(err, server.ErrInvalid) {
		t.Errorf("an over-count body that is not JSON: %v, want ErrInvalid", err)
	}
}

// TestDecodePutMessages: each refusal names what is wrong.
func TestDecodePutMessages(t *testing.T) {
	for body, want := range map[string]string{
		`[]`:                                 "must be a JSON object",
		`{"entries":[]}`:                     "entries has the wrong type: got JSON array, want an object of strings",
		`{"entries":{"a.md":1}}`:             `entries["a.md"] must be a string`,
		`{"entries":{"a.md":null}}`:          `entries["a.md"] is null`,
		`{"soft_delete_keys":{}}`:            "soft_delete_keys has the wrong type: got JSON object, want an array of strings",
		`{"soft_delete_keys":["a.md",true]}`: "soft_delete_keys[1] must be a key string, got JSON boolean",
		`{"soft_delete_keys":[null]}`:        "soft_delete_keys[0] is null",
		`{"all_or_nothing":"yes"}`:           "all_or_nothing has the wrong type: got JSON string, want a boolean",
		`{"entries":{"a.md":"x"}} x`:         "not valid JSON (at byte 25",
		`{"entries":{"a.md":"x"}} {}`:        "data after the top-level object",
		`{"entries":{"a.md":"x"`:             "ends before the object does",
		`{"entries":{"a.md":"x"},"y":[1,}`:   "not valid JSON (at byte 30",
		`{"x":` + strings.Repeat("[", 20000): "not valid JSON",
		`{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`: "not valid JSON",
	} {
		_, err := decodePut([]byte(body), server.Limits{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("decodePut(%.60q) = %v, want an error containing %q", body, err, want)
		}
	}
}

func FuzzDecodePut(f *testing.F) {
	for _, body := range putBodyBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDecodePut(t, body) })
}

// BenchmarkDecodePut decodes the load generator's single-key PUT: one
// 2 KB Markdown entry.
func BenchmarkDecodePut(b *testing.B) {
	content := "# load/entry-0001.md\n\nGeneration 7.\n\n" + strings.Repeat("The team agreed to keep this note short and to update it when the design changes. ", 25)
	body, _ := json.Marshal(map[string]map[string]string{"entries": {"load/entry-0001.md": content[:2048]}})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodePut(body, server.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodePutInvalid decodes one PUT of n entries whose content is
// not UTF-8 ("\xff"), with the entry limit above n (every entry decoded
// and set aside) and at the default limit (the body refused as over the
// count): the cost is linear in n either way.
func BenchmarkDecodePutInvalid(b *testing.B) {
	for _, n := range []int{1000, 10000, 40000, 150000} {
		body := InvalidContentBody(n)
		for _, max := range []int{1 << 20, server.DefaultMaxEntries} {
			limits := server.Limits{MaxEntries: max}
			b.Run(fmt.Sprintf("entries=%d/max=%d", n, max), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					_, _ = decodePut(body, limits)
				}
			})
		}
	}
}

// InvalidContentBody is a PUT body of n entries whose content is not UTF-8
// ("\xff"), which encoding/json cannot produce; exported for the
// benchmarks of package httpapi_test.
func InvalidContentBody(n int) []byte {
	var body strings.Builder
	body.WriteString(`{"entries":{`)
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, "\"bad/%06d.md\":\"\xff\"", i)
	}
	body.WriteString(`}}`)
	return []byte(body.String())
}
