package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/protocol/protocoltest"
	"github.com/teammem/teammem/server"
)

// hostileEntries are contents a full GET body must carry exactly: every
// character JSON escapes or might (quotes, backslashes, the control
// characters, U+2028 and U+2029, <, > and &), characters of every UTF-8
// length, a combining mark, an empty entry, keys of every script, and
// entries near the default size limit whose escapes and multi-byte
// characters fall across the stream's buffer boundaries, each at another
// offset.
func hostileEntries() map[string]string {
	var ctl strings.Builder
	for c := rune(1); c < 0x20; c++ {
		ctl.WriteRune(c)
	}
	mix := "\"quoted\" \\back\\slash\\ <b>&amp;</b> \u2028\u2029 é € 😀 e\u0301 \ufffd \u007f \u00a0\t\r\n" + ctl.String()
	m := map[string]string{"empty.md": "", "controls.md": ctl.String(), "mix.md": mix, "gone.md": "deleted below"}
	for _, k := range protocoltest.OrdinaryKeys {
		m[k.Key] = k.Name + ": " + mix
	}
	for i := range 3 {
		m[fmt.Sprintf("large/%d.md", i)] = strings.Repeat("x", 1+i*7) + strings.Repeat(mix, (server.DefaultMaxEntryBytes-100)/len(mix))
	}
	return m
}

// wireBody is the full GET body of snap as json.Marshal writes
// api.TeamMemory, without HTML escaping: what the body was before it was
// streamed.
func wireBody(t *testing.T, org string, snap server.Snapshot) []byte {
	t.Helper()
	tm := api.TeamMemory{OrganizationID: org, Repo: snap.Repo, Version: snap.Version, LastModified: formatTime(snap.UpdatedAt),
		Checksum: snap.Checksum, Content: api.Content{Entries: map[string]string{}, EntryChecksums: map[string]string{},
			DeletedEntries: map[string]int64{}}}
	for _, e := range snap.Live {
		tm.Content.Entries[e.Key], tm.Content.EntryChecksums[e.Key] = e.Content, e.Checksum
	}
	for _, d := range snap.Deleted {
		tm.Content.DeletedEntries[d.Key] = d.DeletedAt.UnixMilli()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tm); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// snapshotOf is the snapshot of a repository holding entries, with the
// tombstones of deleted.
func snapshotOf(repo string, entries map[string]string, deleted ...string) server.Snapshot {
	at := time.Date(2026, 5, 1, 12, 30, 15, 123456789, time.UTC)
	snap := server.Snapshot{RepoState: server.RepoState{Repo: repo, Version: 9, UpdatedAt: at}}
	sums := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		sums[k] = protocol.EntryChecksum([]byte(entries[k]))
		snap.Live = append(snap.Live, server.Entry{Key: k, Content: entries[k], Checksum: sums[k], Size: int64(len(entries[k]))})
	}
	for _, k := range slices.Sorted(slices.Values(deleted)) {
		snap.Deleted = append(snap.Deleted, server.Tombstone{Key: k, Version: 8, DeletedAt: at.Add(-time.Hour)})
	}
	snap.Checksum, snap.Entries = protocol.DatasetChecksum(sums), len(entries)
	return snap
}

// TestFullStreamIsTheWireEncoding: the body fullStream writes entry by
// entry equals the wire encoding of the same snapshot, byte for byte, for
// hostile contents and for a repository with no live entry (with
// tombstones or none).
func TestFullStreamIsTheWireEncoding(t *testing.T) {
	hostile := hostileEntries()
	delete(hostile, "gone.md")
	for name, snap := range map[string]server.Snapshot{
		"hostile":         snapshotOf("acme/hostile", hostile, "gone.md", "Zürich.md"),
		"empty":           snapshotOf("acme/empty", nil),
		"tombstones only": snapshotOf("acme/cleared", nil, "a.md", "决策记录.md"),
	} {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			s := newFullStream(rec, httptest.NewRequest("GET", "/", nil), "acme-org")
			if err := s.State(snap.RepoState); err != nil {
				t.Fatal(err)
			}
			for _, e := range snap.Live {
				if err := s.Entry(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.finish(snap.Deleted); err != nil {
				t.Fatal(err)
			}
			want := wireBody(t, "acme-org", snap)
			if got := rec.Body.Bytes(); !bytes.Equal(got, want) {
				t.Errorf("streamed body differs from the wire encoding at byte %d of %d/%d", firstDiff(got, want), len(got), len(want))
			}
			if rec.Header().Get("ETag") != api.ETag(snap.Checksum) {
				t.Errorf("ETag %q, want %q", rec.Header().Get("ETag"), api.ETag(snap.Checksum))
			}
		})
	}
}

// firstDiff returns the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
