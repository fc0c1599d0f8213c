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
	"github.com/teammem/teammem/testkit/servertest"
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
	if r := ts.Do("PUT", api.PathTeamMemory+"?repo="+repo, ts.Admin, body); r.Status != 200 {
		t.Fatalf("PUT = %d %s", r.Status, r.Body)
	}
	if r := ts.Do("PUT", api.PathTeamMemory+"?repo="+repo, ts.Admin, []byte(`{"soft_delete_keys":["topic/000.md"]}`)); r.Status != 200 {
		t.Fatalf("delete = %d %s", r.Status, r.Body)
	}
}

// TestStreamedFullGETEqualsEncoded: a repository larger than the body cache
// keeps is streamed entry by entry; the bytes equal those of the encoded
// (cached) path, tombstones included.
func TestStreamedFullGETEqualsEncoded(t *testing.T) {
	streamed := newTestServer(t, servertest.Options{BodyCacheBytes: 64 << 10}) // bodies over 16 KiB stream
	encoded := newTestServer(t, servertest.Options{})
	for _, ts := range []*testServer{streamed, encoded} {
		bigPush(t, ts, "acme/big", 40, 3000)
	}
	a := streamed.Send(false, "GET", api.PathTeamMemory+"?repo=acme/big", streamed.Admin, nil, "Accept-Encoding", "identity")
	b := encoded.Send(false, "GET", api.PathTeamMemory+"?repo=acme/big", encoded.Admin, nil, "Accept-Encoding", "identity")
	if a.Status != 200 || b.Status != 200 {
		t.Fatalf("GET = %d, %d", a.Status, b.Status)
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
	if strip(a.Body) != strip(b.Body) {
		t.Errorf("the streamed body differs from the encoded one")
	}
	if a.Header.Get("Content-Length") != "" {
		t.Errorf("a streamed body has Content-Length %s", a.Header.Get("Content-Length"))
	}
	if a.Header.Get("ETag") != b.Header.Get("ETag") || a.Header.Get("ETag") == "" {
		t.Errorf("ETag %q vs %q", a.Header.Get("ETag"), b.Header.Get("ETag"))
	}
	// Byte for byte: both bodies encode as json.Marshal without HTML escaping.
	for name, body := range map[string][]byte{"streamed": a.Body, "encoded": b.Body} {
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
			ts := newTestServer(t, servertest.Options{BodyCacheBytes: cache})
			bigPush(t, ts, "acme/gz", 30, 2000)
			for _, path := range []string{"?repo=acme/gz", "?repo=acme/gz&view=hashes"} {
				plain := ts.Send(false, "GET", api.PathTeamMemory+path, ts.Admin, nil, "Accept-Encoding", "identity")
				for range 2 { // the second one from the cache's gzipped copy
					gz := ts.Send(false, "GET", api.PathTeamMemory+path, ts.Admin, nil, "Accept-Encoding", "br;q=1, gzip;q=0.8")
					if gz.Header.Get("Content-Encoding") != "gzip" || plain.Header.Get("Content-Encoding") != "" {
						t.Fatalf("%s: Content-Encoding %q (gzip accepted), %q (not)", path, gz.Header.Get("Content-Encoding"), plain.Header.Get("Content-Encoding"))
					}
					zr, err := gzip.NewReader(bytes.NewReader(gz.Body))
					if err != nil {
						t.Fatal(err)
					}
					un, err := io.ReadAll(zr)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(un, plain.Body) {
						t.Errorf("%s: gunzipped body differs from the plain one", path)
					}
					if len(gz.Body)*2 > len(plain.Body) {
						t.Errorf("%s: gzip %d bytes for %d plain", path, len(gz.Body), len(plain.Body))
					}
				}
			}
			if r := ts.Send(false, "GET", api.PathTeamMemory+"?repo=acme/gz", ts.Admin, nil, "Accept-Encoding", "gzip;q=0, *"); r.Header.Get("Content-Encoding") != "" {
				t.Errorf("gzip;q=0 still got %q", r.Header.Get("Content-Encoding"))
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
