package client

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// maxEventBytes caps one line and one event's data in an event stream, so
// that a hostile server cannot exhaust memory.
const maxEventBytes = 8 << 20

// sseEvent is one dispatched Server-Sent Event.
type sseEvent struct {
	ID    string // the last event id in force when dispatched
	Event string // the event type; "" when the event named none
	Data  string // the data lines joined with "\n"
}

// sseReader parses a text/event-stream (the WHATWG HTML "server-sent events"
// format): lines ending in LF, CRLF or CR; comments starting with ':';
// fields event, data, id and retry; an event dispatched at each blank line.
type sseReader struct {
	lines   *bufio.Scanner
	idBuf   string        // the id field in force, committed at dispatch
	lastID  string        // the id of the last dispatched event
	retry   time.Duration // the last valid retry field
	started bool
}

// newSSEReader reads events from r.
func newSSEReader(r io.Reader) *sseReader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 4096), maxEventBytes)
	s.Split(scanSSELine)
	return &sseReader{lines: s}
}

// next returns the next event with data. An event cut off by the end of the
// stream is dropped; the end is io.EOF.
func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data strings.Builder
	for r.lines.Scan() {
		line := r.lines.Text()
		if !r.started {
			line, r.started = strings.TrimPrefix(line, "\uFEFF"), true
		}
		if line == "" {
			if data.Len() == 0 {
				ev.Event = ""
				continue
			}
			r.lastID = r.idBuf
			ev.ID, ev.Data = r.lastID, strings.TrimSuffix(data.String(), "\n")
			return ev, nil
		}
		if err := r.field(line, &ev, &data); err != nil {
			return sseEvent{}, err
		}
	}
	if err := r.lines.Err(); err != nil {
		return sseEvent{}, fmt.Errorf("read event stream: %w", err)
	}
	return sseEvent{}, io.EOF
}

// field applies one non-blank line to the event being built.
func (r *sseReader) field(line string, ev *sseEvent, data *strings.Builder) error {
	if strings.HasPrefix(line, ":") {
		return nil // comment, such as the keep-alive
	}
	name, value, _ := strings.Cut(line, ":")
	value = strings.TrimPrefix(value, " ")
	switch name {
	case "event":
		ev.Event = value
	case "data":
		if data.Len()+len(value) >= maxEventBytes {
			return fmt.Errorf("read event stream: %w: event data over %d bytes", ErrInvalidResponse, maxEventBytes)
		}
		data.WriteString(value)
		data.WriteByte('\n')
	case "id":
		if !strings.ContainsRune(value, 0) {
			r.idBuf = value
		}
	case "retry":
		if ms, err := strconv.ParseUint(value, 10, 32); err == nil {
			r.retry = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}

// scanSSELine is a bufio.SplitFunc for lines ending in "\r\n", "\n" or "\r".
func scanSSELine(data []byte, atEOF bool) (advance int, token []byte, err error) {
	i := bytes.IndexAny(data, "\r\n")
	switch {
	case i < 0 && atEOF && len(data) > 0:
		return len(data), data, nil
	case i < 0:
		return 0, nil, nil // the Scanner fails with ErrTooLong past maxEventBytes
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data):
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	case atEOF:
		return i + 1, data[:i], nil
	}
	return 0, nil, nil // a CR at the end of the buffer: wait for a possible LF
}
