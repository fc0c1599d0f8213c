package httpapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// gzipMinBytes is the smallest body worth compressing. A body under the
// TCP initial window (10 segments, about 14 KB) reaches the client in one
// round trip compressed or not, so compressing it saves bytes but no time,
// and costs the server more than sending it: about 0.1 ms per new version
// of a 20-entry hashes view, which 8 conditional writers read about 5
// times per acknowledged write.
const gzipMinBytes = 8 << 10

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (listed without q=0, or * without q=0 and gzip not refused).
func acceptsGzip(r *http.Request) bool {
	gzip, star := -1.0, -1.0
	for _, h := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(h, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			q := 1.0
			if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "gzip", "x-gzip":
				gzip = q
			case "*":
				star = q
			}
		}
	}
	if gzip >= 0 {
		return gzip > 0
	}
	return star > 0
}

// gzipPool recycles compressors: each holds about a megabyte of state.
var gzipPool = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return w
}}

func getGzip(dst io.Writer) *gzip.Writer {
	w := gzipPool.Get().(*gzip.Writer)
	w.Reset(dst)
	return w
}

func putGzip(c io.Closer) {
	if w, ok := c.(*gzip.Writer); ok {
		w.Reset(io.Discard)
		gzipPool.Put(w)
	}
}

// gzipBytes compresses body.
func gzipBytes(body []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(body) / 4)
	w := getGzip(&b)
	_, _ = w.Write(body)
	_ = w.Close()
	putGzip(w)
	return b.Bytes()
}
