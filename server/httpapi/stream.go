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

// fullStream encodes the full GET body (api.TeamMemory) while the store
// reads it: the state opens the response, each live entry is written as it
// arrives, and only the keys' checksums are kept for entryChecksums. The
// bytes equal json.Marshal's of the same snapshot without HTML escaping
// (map keys in byte order, as the store reads them). It implements
// server.EntryStream.
type fullStream struct {
	w       http.ResponseWriter
	r       *http.Request
	org     string
	out     *bufio.Writer
	gz      io.Closer // the gzip layer, when the client accepts it
	scratch bytes.Buffer
	enc     *json.Encoder
	sums    []keySum
	started bool
}

type keySum struct{ key, sum string }

func newFullStream(w http.ResponseWriter, r *http.Request, org string) *fullStream {
	s := &fullStream{w: w, r: r, org: org}
	s.enc = json.NewEncoder(&s.scratch)
	s.enc.SetEscapeHTML(false)
	return s
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
	s.raw(`{"organizationId":`)
	s.str(s.org)
	s.raw(`,"repo":`)
	s.str(st.Repo)
	s.raw(`,"version":` + strconv.FormatInt(st.Version, 10) + `,"lastModified":`)
	s.str(formatTime(st.UpdatedAt))
	s.raw(`,"checksum":`)
	s.str(st.Checksum)
	s.raw(`,"content":{"entries":{`)
	return s.err()
}

// Entry writes one "key":"content" member.
func (s *fullStream) Entry(e server.Entry) error {
	if len(s.sums) > 0 {
		s.raw(",")
	}
	s.str(e.Key)
	s.raw(":")
	s.str(e.Content)
	s.sums = append(s.sums, keySum{e.Key, e.Checksum})
	return s.err()
}

// finish writes entryChecksums and deletedEntries and flushes.
func (s *fullStream) finish(deleted []server.Tombstone) error {
	s.raw(`},"entryChecksums":{`)
	for i, ks := range s.sums {
		if i > 0 {
			s.raw(",")
		}
		s.str(ks.key)
		s.raw(":")
		s.str(ks.sum)
	}
	s.raw(`},"deletedEntries":{`)
	for i, t := range deleted {
		if i > 0 {
			s.raw(",")
		}
		s.str(t.Key)
		s.raw(":" + strconv.FormatInt(t.DeletedAt.UnixMilli(), 10))
	}
	s.raw("}}}\n")
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

func (s *fullStream) raw(text string) { _, _ = s.out.WriteString(text) }

// str writes v as a JSON string without HTML escaping.
func (s *fullStream) str(v string) {
	s.scratch.Reset()
	_ = s.enc.Encode(v) // a string always encodes
	b := s.scratch.Bytes()
	_, _ = s.out.Write(b[:len(b)-1]) // without Encode's newline
}

// err reports the first write error (the client went away).
func (s *fullStream) err() error {
	_, err := s.out.Write(nil)
	return err
}
