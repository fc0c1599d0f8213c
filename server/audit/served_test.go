package audit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
)

// flakyLog is a server.ServedLog whose saves fail while failing is set:
// the fault the Coalescer must survive. It keeps what it saved.
type flakyLog struct {
	server.ServedLog
	failing bool
	saved   []server.ServedRecord
}

func (l *flakyLog) SaveServed(_ context.Context, recs []server.ServedRecord) error {
	if l.failing {
		return errors.New("database unreachable")
	}
	l.saved = append(l.saved, recs...)
	return nil
}

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// TestCoalescerKeepsWhatFailed: a flush that fails keeps its records for
// the next one, a record's keys stop at server.MaxServedKeys, and a window
// that ended is saved whole and forgotten.
func TestCoalescerKeepsWhatFailed(t *testing.T) {
	log := &flakyLog{failing: true}
	c := audit.NewCoalescer(log, "r")
	var keys []string
	for i := range server.MaxServedKeys + 10 {
		keys = append(keys, fmt.Sprintf("k%04d.md", i))
	}
	c.Served(server.Served{Subject: "ana", Repo: "acme/api", Version: 3, Surface: server.ServedMCP, Keys: keys, At: t0})
	if err := c.Flush(context.Background(), t0.Add(time.Minute), false); err == nil {
		t.Fatal("Flush through a failing log succeeded")
	}
	log.failing = false
	c.Served(server.Served{Subject: "ana", Repo: "acme/api", Version: 3, Surface: server.ServedMCP, At: t0.Add(2 * time.Minute)})
	if err := c.Flush(context.Background(), t0.Add(3*time.Minute), false); err != nil {
		t.Fatal(err)
	}
	if len(log.saved) != 1 || log.saved[0].Count != 2 || len(log.saved[0].Keys) != server.MaxServedKeys {
		t.Fatalf("saved %+v; want the record once, 2 servings, %d keys", log.saved, server.MaxServedKeys)
	}
	c.Served(server.Served{Subject: "ana", Repo: "acme/api", Version: 3, Surface: server.ServedMCP, At: t0.Add(4 * time.Minute)})
	if err := c.Flush(context.Background(), t0.Add(5*time.Minute), false); err != nil || len(log.saved) != 1 {
		t.Fatalf("a flush within the window saved %d records, %v; want none more", len(log.saved)-1, err)
	}
	if err := c.Flush(context.Background(), t0.Add(server.ServedWindow+time.Minute), false); err != nil || len(log.saved) != 2 || log.saved[1].Count != 3 || c.Open() != 0 {
		t.Fatalf("after the window, saved %+v, open %d, %v; want the record again with 3 servings, none open", log.saved, c.Open(), err)
	}
}
