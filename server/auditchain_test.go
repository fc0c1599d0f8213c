package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// marshalled is what AuditBody wrote before it had its own encoder:
// json.Marshal of the record, its time in UTC to the microsecond.
func marshalled(t testing.TB, r AuditRecord) []byte {
	t.Helper()
	r.At = r.At.UTC().Truncate(time.Microsecond)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return b
}

// hostileRecord is a write's record with s in every string and map key.
func hostileRecord(s string, at time.Time) AuditRecord {
	return AuditRecord{Repo: s, At: at, Action: AuditAction(s),
		By:      AuditActor{Subject: s, DisplayName: s, Credential: s, Surface: s, Client: s, Machine: s, Commit: s, ApprovedBy: s, Proposal: -7},
		Version: 42, Checksum: s, Changes: []AuditChange{{Key: s, Op: Op(s), Checksum: s}, {Key: "b", Op: OpDelete, Checksum: ""}},
		Detail: map[string]string{s: s, "z": "1", "a" + s: "", "": s}}
}

func TestAuditBodyIsJSONMarshal(t *testing.T) {
	at := time.Date(2026, 12, 7, 15, 4, 5, 123456789, time.FixedZone("x", 5*3600+1800))
	hostile := []string{"", "plain/key.md", `"quoted"`, `back\slash`, "<script>&amp;</script>", "tab\tnew\nline\r",
		"\x00\x01\x08\x0c\x1f\x7f", "é ü 日本", "\u2028\u2029", "bad \xff\xfe utf8", "\xed\xa0\x80 surrogate", "emoji 😀",
		strings.Repeat("long-", 300)}
	for _, s := range hostile {
		r := hostileRecord(s, at)
		if got, err := AuditBody(r); err != nil || !bytes.Equal(got, marshalled(t, r)) {
			t.Errorf("%q:\n got %s (%v)\nwant %s", s, got, err, marshalled(t, r))
		}
	}
	plain := []AuditRecord{
		{}, // zero: no repo, the zero time, no actor
		{Repo: "acme/app", At: at, Action: AuditWrite, By: AuditActor{Subject: "alice"}, Version: 1, Checksum: "sha256:ab",
			Changes: []AuditChange{{Key: "a.md", Op: OpPut, Checksum: "c1"}}},
		{At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Action: AuditTokenCreate, Detail: map[string]string{"token": "t1", "grants": "a b", "expires": "x"}},
		{At: time.Date(2026, 1, 1, 0, 0, 0, 1000, time.UTC), Detail: map[string]string{}, Changes: []AuditChange{}},
		{At: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{At: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
	}
	for _, r := range plain {
		if got, err := AuditBody(r); err != nil || !bytes.Equal(got, marshalled(t, r)) {
			t.Errorf("%+v:\n got %s (%v)\nwant %s", r, got, err, marshalled(t, r))
		}
		if _, ok := appendAuditBody(nil, &r); !ok {
			t.Errorf("%+v: left to json.Marshal, want the encoder's own", r)
		}
	}
	// A year RFC 3339 cannot write is json.Marshal's error, as before.
	for _, y := range []int{-1, 10000} {
		if _, err := AuditBody(AuditRecord{At: time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
			t.Errorf("year %d: no error", y)
		}
	}
}

func FuzzAuditBody(f *testing.F) {
	f.Add("acme/app", int64(1765119845123456789), "write", "alice", "Alice", "tok-1", "mcp", "claude-code", "host", "abc123", "", int64(0),
		int64(3), "sha256:ff", "notes/a.md", "put", "c1", "token", "t1")
	f.Add("", int64(0), "token.create", "<b>&", "\u2028", "\xff", "", "", "", "", "bob", int64(9), int64(-1), "", "", "", "", "", "")
	f.Add("r", int64(-62135596800000000000/1000), "x", "\"\\\n", "é", "", "", "", "", "", "", int64(0), int64(0), "", "\x00", "delete", "\x7f", "\x1f", "😀")
	f.Fuzz(func(t *testing.T, repo string, nanos int64, action, subject, display, cred, surface, client, machine, commit, approvedBy string,
		proposal, version int64, checksum, key, op, keySum, dk, dv string) {
		r := AuditRecord{Repo: repo, At: time.Unix(0, nanos).In(time.FixedZone("f", int(nanos%50000))), Action: AuditAction(action),
			By: AuditActor{Subject: subject, DisplayName: display, Credential: cred, Surface: surface, Client: client, Machine: machine,
				Commit: commit, ApprovedBy: approvedBy, Proposal: proposal},
			Version: version, Checksum: checksum}
		if key != "" || op != "" || keySum != "" {
			r.Changes = []AuditChange{{Key: key, Op: Op(op), Checksum: keySum}, {Key: keySum, Op: Op(key), Checksum: op}}
		}
		if dk != "" || dv != "" {
			r.Detail = map[string]string{dk: dv, dv: dk, "m": key}
		}
		got, err := AuditBody(r)
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalled(t, r); !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

func BenchmarkAuditBody(b *testing.B) {
	r := AuditRecord{Repo: "acme/app", At: time.Now(), Action: AuditWrite,
		By:      AuditActor{Subject: "alice@example.com", Credential: "tok-0123456789", Surface: "mcp", Client: "claude-code/2.1", Machine: "alice-laptop"},
		Version: 1234, Checksum: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		Changes: []AuditChange{{Key: "notes/architecture.md", Op: OpPut, Checksum: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AuditBody(r); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAuditBodyKnowsEveryField: appendAuditBody writes the records'
// fields one by one; a field added to one of these structs must be
// written there too (or the fast path would leave it out of the hashed
// body while json.Marshal kept it).
func TestAuditBodyKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		t    reflect.Type
		want int
	}{{reflect.TypeFor[AuditRecord](), 8}, {reflect.TypeFor[AuditActor](), 9}, {reflect.TypeFor[AuditChange](), 3}} {
		if got := c.t.NumField(); got != c.want {
			t.Errorf("%s has %d fields, appendAuditBody writes %d: teach it the new ones (and FuzzAuditBody)", c.t, got, c.want)
		}
	}
}
