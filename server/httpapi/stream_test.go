package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

// bigPush writes n entries of size bytes each (Markdown-like, with
// characters JSON escapes) to repo.
func bigPush(t *testing.T, ts *testServer, repo string, n, size int) {
	t.Helper()
	entries := map[string]string{}
	for i := range n {
		line := fmt.Sprintf("- note %d: use <b>&</b> \"quotes\", tabs\\t and ünïcödé\n", i)
		entries[fmt.Sprintf("topic/%03d.md", i)] = strings.Repeat(line, size/len(line)+1)[:size]
	}
	body, _ := jsonMarshal(map[string]any{"entries": entries, "soft_delete_keys": []string{}})
	if r := ts.do("PUT", api.PathTeamMemory+"?repo="+repo, ts.admin, body); r.status != 200 {
		t.Fatalf("PUT = %d %s", r.status, r.body)
	}
	if r := ts.do("PUT", api.PathTeamMemory+"?repo="+repo, ts.admin, []byte(`{"soft_delete_keys":["topic/000.md"]}`)); r.status != 200 {
		t.Fatalf("delete = %d %s", r.status, r.body)
	}
}

// TestStreamedFullGETEqualsEncoded: a repository larger than the body cache
// keeps is streamed entry by entry; the bytes equal those of the encoded
// (cached) path, tombstones included.
func TestStreamedFullGETEqualsEncoded(t *testing.T) {
	streamed := newTestServer(t, serverOpts{bodyCache: 64 << 10}) // bodies over 16 KiB stream
	encoded := newTestServer(t, serverOpts{})
	for _, ts := range []*testServer{streamed, encoded} {
		bigPush(t, ts, "acme/big", 40, 3000)
	}
	a := streamed.send(false, "GET", api.PathTeamMemory+"?repo=acme/big", streamed.admin, nil, "Accept-Encoding", "identity")
	b := encoded.send(false, "GET", api.PathTeamMemory+"?repo=acme/big", encoded.admin, nil, "Accept-Encoding", "identity")
	if a.status != 200 || b.status != 200 {
		t.Fatalf("GET = %d, %d", a.status, b.status)
	}
	// The two servers wrote at different times: compare without lastModified and deletion times.
	strip := func(body []byte) string {
		var tm api.TeamMemory
		if err := jsonUnmarshal(body, &tm); err != nil {
			t.Fatalf("not JSON: %v: %.200s", err, body)
		}
		tm.LastModified = ""
		for k := range tm.Content.DeletedEntries {
			tm.Content.DeletedEntries[k] = 0
		}
		out, _ := jsonMarshal(tm)
		return string(out)
	}
	if strip(a.body) != strip(b.body) {
		t.Errorf("the streamed body differs from the encoded one")
	}
	if a.header.Get("Content-Length") != "" {
		t.Errorf("a streamed body has Content-Length %s", a.header.Get("Content-Length"))
	}
	if a.header.Get("ETag") != b.header.Get("ETag") || a.header.Get("ETag") == "" {
		t.Errorf("ETag %q vs %q", a.header.Get("ETag"), b.header.Get("ETag"))
	}
	// Byte for byte: both bodies encode as json.Marshal without HTML escaping.
	for name, body := range map[string][]byte{"streamed": a.body, "encoded": b.body} {
		var tm api.TeamMemory
		_ = jsonUnmarshal(body, &tm)
		var want bytes.Buffer
		enc := newEncoderNoHTML(&want)
		_ = enc.Encode(tm)
		if !bytes.Equal(body, want.Bytes()) {
			t.Errorf("the %s body is not the canonical encoding", name)
		}
	}
}

// TestGzip: a client that accepts gzip gets the full body, streamed or
// cached, and the hashes view gzipped; one that does not gets it plain.
func TestGzip(t *testing.T) {
	for name, cache := range map[string]int64{"streamed": 64 << 10, "cached": 0} {
		t.Run(name, func(t *testing.T) {
			ts := newTestServer(t, serverOpts{bodyCache: cache})
			bigPush(t, ts, "acme/gz", 30, 2000)
			for _, path := range []string{"?repo=acme/gz", "?repo=acme/gz&view=hashes"} {
				plain := ts.send(false, "GET", api.PathTeamMemory+path, ts.admin, nil, "Accept-Encoding", "identity")
				for range 2 { // the second one from the cache's gzipped copy
					gz := ts.send(false, "GET", api.PathTeamMemory+path, ts.admin, nil, "Accept-Encoding", "br;q=1, gzip;q=0.8")
					if gz.header.Get("Content-Encoding") != "gzip" || plain.header.Get("Content-Encoding") != "" {
						t.Fatalf("%s: Content-Encoding %q (gzip accepted), %q (not)", path, gz.header.Get("Content-Encoding"), plain.header.Get("Content-Encoding"))
					}
					zr, err := gzip.NewReader(bytes.NewReader(gz.body))
					if err != nil {
						t.Fatal(err)
					}
					un, err := io.ReadAll(zr)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(un, plain.body) {
						t.Errorf("%s: gunzipped body differs from the plain one", path)
					}
					if len(gz.body)*2 > len(plain.body) {
						t.Errorf("%s: gzip %d bytes for %d plain", path, len(gz.body), len(plain.body))
					}
				}
			}
			if r := ts.send(false, "GET", api.PathTeamMemory+"?repo=acme/gz", ts.admin, nil, "Accept-Encoding", "gzip;q=0, *"); r.header.Get("Content-Encoding") != "" {
				t.Errorf("gzip;q=0 still got %q", r.header.Get("Content-Encoding"))
			}
		})
	}
}

func newEncoderNoHTML(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	err := newEncoderNoHTML(&b).Encode(v)
	return b.Bytes(), err
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
