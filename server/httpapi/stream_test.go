package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server/httpapi"
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
// A body under gzipMinBytes goes plain either way.
func TestGzip(t *testing.T) {
	for name, cache := range map[string]int64{"streamed": 64 << 10, "cached": 0} {
		t.Run(name, func(t *testing.T) {
			ts := newTestServer(t, servertest.Options{BodyCacheBytes: cache})
			bigPush(t, ts, "acme/small", 20, 100)
			for _, path := range []string{"?repo=acme/small", "?repo=acme/small&view=hashes"} {
				r := ts.Send(false, "GET", api.PathTeamMemory+path, ts.Admin, nil, "Accept-Encoding", "gzip")
				if r.Status != 200 || len(r.Body) >= httpapi.GzipMinBytes || r.Header.Get("Content-Encoding") != "" {
					t.Errorf("%s: %d, %d bytes, Content-Encoding %q; want a plain body under %d bytes",
						path, r.Status, len(r.Body), r.Header.Get("Content-Encoding"), httpapi.GzipMinBytes)
				}
			}
			bigPush(t, ts, "acme/gz", 120, 600) // the hashes view over gzipMinBytes
			for _, path := range []string{"?repo=acme/gz", "?repo=acme/gz&view=hashes"} {
				plain := ts.Send(false, "GET", api.PathTeamMemory+path, ts.Admin, nil, "Accept-Encoding", "identity")
				for range 2 { // the second one from the cache's gzipped copy
					gz := ts.Send(false, "GET", api.PathTeamMemory+path, ts.Admin, nil, "Accept-Encoding", "br;q=1, gzip;q=0.8")
					if gz.Header.Get("Content-Encoding") != "gzip" || plain.Header.Get("Content-Encoding") != "" {
						t.Fatalf("%s: Content-Encoding %q (gzip accepted), %q (not)", path, gz.Header.Get("Content-Encoding"), plain.Header.Get("Content-Encoding"))
					}
					if un := gunzipped(t, gz); !bytes.Equal(un, plain.Body) {
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

// TestStreamedFullGETIdenticalForHostileContent: one store served twice,
// by a server that streams the repository and by one that encodes it
// whole (its body cache keeps it): the bodies are identical byte for byte,
// plain and gunzipped, for hostile contents and entries near the size
// limit; they carry every entry as written, and the checksums add up.
func TestStreamedFullGETIdenticalForHostileContent(t *testing.T) {
	streamed := newTestServer(t, servertest.Options{BodyCacheBytes: 64 << 10}) // bodies over 16 KiB stream
	encoded := &testServer{Server: streamed.Replica(t, servertest.Options{}), t: t}
	entries := httpapi.HostileEntries()
	for k, c := range entries { // one PUT per entry: the large ones fill a body each
		streamed.Put("acme/hostile", map[string]string{k: c}, nil, http.StatusOK)
	}
	streamed.Put("acme/hostile", nil, []string{"gone.md"}, http.StatusOK)
	delete(entries, "gone.md")
	for _, enc := range []string{"identity", "gzip"} {
		a := streamed.Send(false, "GET", api.PathTeamMemory+"?repo=acme/hostile", streamed.Admin, nil, "Accept-Encoding", enc)
		b := encoded.Send(false, "GET", api.PathTeamMemory+"?repo=acme/hostile", encoded.Admin, nil, "Accept-Encoding", enc)
		if a.Status != 200 || b.Status != 200 || a.Header.Get("Content-Length") != "" || b.Header.Get("Content-Length") == "" {
			t.Fatalf("%s: GET = %d (length %q), %d (length %q); want 200 streamed, 200 whole", enc,
				a.Status, a.Header.Get("Content-Length"), b.Status, b.Header.Get("Content-Length"))
		}
		pa, pb := gunzipped(t, a), gunzipped(t, b)
		if !bytes.Equal(pa, pb) || a.Header.Get("ETag") != b.Header.Get("ETag") {
			t.Fatalf("%s: the streamed body (%d bytes, ETag %s) differs from the encoded one (%d bytes, ETag %s)", enc,
				len(pa), a.Header.Get("ETag"), len(pb), b.Header.Get("ETag"))
		}
		var tm api.TeamMemory
		if err := jsonUnmarshal(pa, &tm); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(entries, tm.Content.Entries); diff != "" {
			t.Errorf("%s: entries (-written +pulled):\n%s", enc, diff)
		}
		for k, c := range tm.Content.Entries {
			if tm.Content.EntryChecksums[k] != protocol.EntryChecksum([]byte(c)) {
				t.Errorf("%s: %q: checksum %s does not match its content", enc, k, tm.Content.EntryChecksums[k])
			}
		}
		if sum := protocol.DatasetChecksum(tm.Content.EntryChecksums); tm.Checksum != sum || a.Header.Get("ETag") != api.ETag(sum) {
			t.Errorf("%s: checksum %s, ETag %s; the entries add up to %s", enc, tm.Checksum, a.Header.Get("ETag"), sum)
		}
		if _, ok := tm.Content.DeletedEntries["gone.md"]; !ok || len(tm.Content.DeletedEntries) != 1 {
			t.Errorf("%s: deletedEntries %v, want gone.md", enc, tm.Content.DeletedEntries)
		}
	}
}

// gunzipped returns r's body, gunzipped when it came gzipped.
func gunzipped(t *testing.T, r servertest.Response) []byte {
	t.Helper()
	if r.Header.Get("Content-Encoding") != "gzip" {
		return r.Body
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
