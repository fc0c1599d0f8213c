package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
)

// bodyEncoder writes the full GET body (api.TeamMemory) piece by piece:
// the state, each live entry as it comes (only the keys' checksums are
// kept, for entryChecksums), then the tombstones. Given the entries and
// tombstones sorted by key (as the Store returns them), the bytes equal
// json.Marshal's of the same snapshot without HTML escaping. It is the one
// encoder of that body: streamed (fullStream) and cached (encodeSnapshot).
type bodyEncoder struct {
	out     bodyWriter
	scratch bytes.Buffer
	enc     *json.Encoder
	sums    []keySum
	werr    error // the first write error (the client went away)
}

// bodyWriter is a bytes.Buffer or a bufio.Writer.
type bodyWriter interface {
	io.Writer
	io.StringWriter
}

type keySum struct{ key, sum string }

func newBodyEncoder(out bodyWriter) *bodyEncoder {
	b := &bodyEncoder{out: out}
	b.enc = json.NewEncoder(&b.scratch)
	b.enc.SetEscapeHTML(false)
	return b
}

// begin writes the body up to the first entry.
func (b *bodyEncoder) begin(org string, st server.RepoState) error {
	b.raw(`{"organizationId":`)
	b.str(org)
	b.raw(`,"repo":`)
	b.str(st.Repo)
	b.raw(`,"version":` + strconv.FormatInt(st.Version, 10) + `,"lastModified":`)
	b.str(formatTime(st.UpdatedAt))
	b.raw(`,"checksum":`)
	b.str(st.Checksum)
	b.raw(`,"content":{"entries":{`)
	return b.werr
}

// entry writes one "key":"content" member.
func (b *bodyEncoder) entry(e server.Entry) error {
	if len(b.sums) > 0 {
		b.raw(",")
	}
	b.str(e.Key)
	b.raw(":")
	b.str(e.Content)
	b.sums = append(b.sums, keySum{e.Key, e.Checksum})
	return b.werr
}

// end writes entryChecksums, deletedEntries and the closing braces.
func (b *bodyEncoder) end(deleted []server.Tombstone) error {
	b.raw(`},"entryChecksums":{`)
	for i, ks := range b.sums {
		if i > 0 {
			b.raw(",")
		}
		b.str(ks.key)
		b.raw(":")
		b.str(ks.sum)
	}
	b.raw(`},"deletedEntries":{`)
	for i, t := range deleted {
		if i > 0 {
			b.raw(",")
		}
		b.str(t.Key)
		b.raw(":" + strconv.FormatInt(t.DeletedAt.UnixMilli(), 10))
	}
	b.raw("}}}\n")
	return b.werr
}

func (b *bodyEncoder) raw(text string) {
	if b.werr == nil {
		_, b.werr = b.out.WriteString(text)
	}
}

// str writes v as a JSON string without HTML escaping.
func (b *bodyEncoder) str(v string) {
	b.scratch.Reset()
	_ = b.enc.Encode(v) // a string always encodes
	if p := b.scratch.Bytes(); b.werr == nil {
		_, b.werr = b.out.Write(p[:len(p)-1]) // without Encode's newline
	}
}

// fullStream writes the full GET body to the client while the store reads
// it, gzipped when the client accepts it. It implements
// server.EntryStream.
type fullStream struct {
	w       http.ResponseWriter
	r       *http.Request
	org     string
	out     *bufio.Writer
	gz      io.Closer // the gzip layer, when the client accepts it
	body    *bodyEncoder
	started bool
}

func newFullStream(w http.ResponseWriter, r *http.Request, org string) *fullStream {
	return &fullStream{w: w, r: r, org: org}
}

// State writes the headers and the body up to the first entry.
func (s *fullStream) State(st server.RepoState) error {
	hd := s.w.Header()
	hd.Set("ETag", api.ETag(st.Checksum))
	hd.Set("Content-Type", "application/json")
	hd.Add("Vary", "Accept-Encoding")
	var dst io.Writer = s.w
	if acceptsGzip(s.r) {
		hd.Set("Content-Encoding", "gzip")
		gz := getGzip(s.w)
		s.gz, dst = gz, gz
	}
	s.w.WriteHeader(http.StatusOK)
	s.started = true
	s.out = bufio.NewWriterSize(dst, 64<<10)
	s.body = newBodyEncoder(s.out)
	return s.body.begin(s.org, st)
}

// Entry writes one "key":"content" member.
func (s *fullStream) Entry(e server.Entry) error { return s.body.entry(e) }

// finish writes the rest of the body and flushes.
func (s *fullStream) finish(deleted []server.Tombstone) error {
	if err := s.body.end(deleted); err != nil {
		return err
	}
	if err := s.out.Flush(); err != nil {
		return err
	}
	if s.gz != nil {
		err := s.gz.Close()
		putGzip(s.gz)
		s.gz = nil
		return err
	}
	return nil
}

// abandon releases the gzip layer of a body that will not be finished.
func (s *fullStream) abandon() {
	if s.gz != nil {
		putGzip(s.gz)
		s.gz = nil
	}
}
