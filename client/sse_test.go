package client

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name      string
		stream    string
		want      []sseEvent
		wantRetry time.Duration
	}{
		{"one event", "id: 3\nevent: change\ndata: {}\n\n",
			[]sseEvent{{ID: "3", Event: "change", Data: "{}"}}, 0},
		{"multi-line data", "data: first\ndata:second\ndata:  third\n\n",
			[]sseEvent{{Data: "first\nsecond\n third"}}, 0},
		{"comments and keep-alives", ": hello\n\n:\n: ping\nevent: change\n: inside\ndata: x\n\n",
			[]sseEvent{{Event: "change", Data: "x"}}, 0},
		{"CRLF and CR line ends", "id: 1\r\ndata: a\r\n\r\nid: 2\rdata: b\r\r",
			[]sseEvent{{ID: "1", Data: "a"}, {ID: "2", Data: "b"}}, 0},
		{"id persists and resets", "id: 5\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
			[]sseEvent{{ID: "5", Data: "a"}, {ID: "5", Data: "b"}, {ID: "", Data: "c"}}, 0},
		{"id with NUL is ignored", "id: 5\ndata: a\n\nid: 6\x007\ndata: b\n\n",
			[]sseEvent{{ID: "5", Data: "a"}, {ID: "5", Data: "b"}}, 0},
		{"event without data is not dispatched", "event: change\nid: 9\n\ndata: y\n\n",
			[]sseEvent{{ID: "9", Data: "y"}}, 0},
		{"retry", "retry: 2500\ndata: a\n\nretry: soon\n\n",
			[]sseEvent{{Data: "a"}}, 2500 * time.Millisecond},
		{"field without colon", "data\ndata\n\n",
			[]sseEvent{{Data: "\n"}}, 0},
		{"unknown fields ignored", "foo: bar\ndata: a\n\n",
			[]sseEvent{{Data: "a"}}, 0},
		{"BOM", "\uFEFFdata: a\n\n",
			[]sseEvent{{Data: "a"}}, 0},
		{"unterminated last event dropped", "data: a\n\ndata: partial\n",
			[]sseEvent{{Data: "a"}}, 0},
		{"empty stream", "", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tt.stream))
			got := readAll(t, r)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if r.retry != tt.wantRetry {
				t.Errorf("retry = %v, want %v", r.retry, tt.wantRetry)
			}
		})
	}
}

// readAll reads events until io.EOF.
func readAll(t *testing.T, r *sseReader) []sseEvent {
	t.Helper()
	var got []sseEvent
	for {
		ev, err := r.next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		got = append(got, ev)
	}
}

// TestSSEReaderSplitReads feeds the stream one byte at a time, so that a CR
// at the end of a read must wait for a possible LF.
func TestSSEReaderSplitReads(t *testing.T) {
	stream := "id: 1\r\ndata: a\r\n\r\nid: 2\rdata: b\r\r"
	got := readAll(t, newSSEReader(&oneByteReader{s: stream}))
	want := []sseEvent{{ID: "1", Data: "a"}, {ID: "2", Data: "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0], r.s = r.s[0], r.s[1:]
	return 1, nil
}

func TestSSEReaderLimits(t *testing.T) {
	t.Run("long line", func(t *testing.T) {
		r := newSSEReader(strings.NewReader("data: " + strings.Repeat("x", maxEventBytes) + "\n\n"))
		if _, err := r.next(); err == nil || err == io.EOF {
			t.Fatalf("next = %v, want an error for an over-long line", err)
		}
	})
	t.Run("many data lines", func(t *testing.T) {
		line := "data: " + strings.Repeat("x", 1<<20) + "\n"
		r := newSSEReader(strings.NewReader(strings.Repeat(line, 9) + "\n"))
		if _, err := r.next(); !errors.Is(err, ErrInvalidResponse) {
			t.Fatalf("next = %v, want ErrInvalidResponse", err)
		}
	})
}

func FuzzSSEReader(f *testing.F) {
	f.Add("id: 1\nevent: change\ndata: {}\n\n")
	f.Add(": c\r\ndata: a\rdata: b\r\n\r\n")
	f.Add("retry: 10\nid\x00: x\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		r := newSSEReader(strings.NewReader(s))
		// Every event needs at least a blank line: two line ends.
		for n := 0; n <= len(s)/2; n++ {
			ev, err := r.next()
			if err != nil {
				return
			}
			if strings.ContainsAny(ev.Data, "\r") || strings.ContainsRune(ev.ID, 0) {
				t.Fatalf("event %+v holds a CR or an id with NUL", ev)
			}
		}
		t.Fatalf("more events than blank lines in %q", s)
	})
}

func BenchmarkSSEReader(b *testing.B) {
	ev := "id: 42\nevent: change\ndata: {\"repo\":\"acme/api\",\"version\":42,\"checksum\":\"sha256:" +
		strings.Repeat("a", 64) + "\",\"changed\":[\"MEMORY.md\",\"notes/db.md\"],\"deleted\":[],\"author\":\"ann\"}\n\n: ping\n\n"
	stream := strings.Repeat(ev, 1000)
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		r := newSSEReader(strings.NewReader(stream))
		for {
			if _, err := r.next(); err != nil {
				break
			}
		}
	}
}
