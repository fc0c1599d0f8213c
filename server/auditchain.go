package server

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AuditBody is the encoding of r the chain hashes and keeps: its JSON,
// whose field order is the struct's and whose Detail keys are sorted; its
// time in UTC to the microsecond, as the stores keep times.
//
// It is written field by field, byte-identical to json.Marshal (the
// chain hashes these bytes, so existing records must still verify):
// a record any of whose strings needs escaping (a quote, a backslash,
// a control byte, <, > or &, anything not ASCII) or whose year is out of
// RFC 3339's range is left to json.Marshal itself. FuzzAuditBody checks
// the two agree.
func AuditBody(r AuditRecord) ([]byte, error) {
	r.At = r.At.UTC().Truncate(time.Microsecond)
	if b, ok := appendAuditBody(make([]byte, 0, auditBodySize(&r)), &r); ok {
		return b, nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode audit record: %w", err)
	}
	return b, nil
}

// auditBodySize is a close upper guess of r's encoding's length, so
// appendAuditBody allocates once.
func auditBodySize(r *AuditRecord) int {
	n := 256 + len(r.Repo) + len(r.Checksum) + len(r.By.Subject) + len(r.By.DisplayName) + len(r.By.Credential) +
		len(r.By.Surface) + len(r.By.Client) + len(r.By.Machine) + len(r.By.Commit) + len(r.By.ApprovedBy)
	for _, c := range r.Changes {
		n += 40 + len(c.Key) + len(c.Op) + len(c.Checksum)
	}
	for k, v := range r.Detail {
		n += 6 + len(k) + len(v)
	}
	return n
}

// appendAuditBody appends json.Marshal(*r)'s bytes to b, r.At already
// in UTC; false if r holds what it leaves to json.Marshal.
func appendAuditBody(b []byte, r *AuditRecord) ([]byte, bool) {
	if y := r.At.Year(); y < 0 || y > 9999 {
		return nil, false
	}
	ok := true
	str := func(b []byte, s string) []byte {
		if !plainJSON(s) {
			ok = false
		}
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	field := func(b []byte, name, s string) []byte { // an omitempty string
		if s == "" {
			return b
		}
		return str(append(b, name...), s)
	}
	b = append(b, '{')
	if r.Repo != "" {
		b = str(append(b, `"repo":`...), r.Repo)
		b = append(b, ',')
	}
	b = append(b, `"at":"`...)
	b = r.At.AppendFormat(b, time.RFC3339Nano)
	b = str(append(b, `","action":`...), string(r.Action))
	a := &r.By
	b = str(append(b, `,"by":{"subject":`...), a.Subject)
	b = field(b, `,"displayName":`, a.DisplayName)
	b = field(b, `,"credential":`, a.Credential)
	b = field(b, `,"surface":`, a.Surface)
	b = field(b, `,"client":`, a.Client)
	b = field(b, `,"machine":`, a.Machine)
	b = field(b, `,"commit":`, a.Commit)
	b = field(b, `,"approvedBy":`, a.ApprovedBy)
	if a.Proposal != 0 {
		b = strconv.AppendInt(append(b, `,"proposal":`...), a.Proposal, 10)
	}
	b = append(b, '}')
	if r.Version != 0 {
		b = strconv.AppendInt(append(b, `,"version":`...), r.Version, 10)
	}
	b = field(b, `,"checksum":`, r.Checksum)
	if len(r.Changes) > 0 {
		b = append(b, `,"changes":[`...)
		for i, c := range r.Changes {
			if i > 0 {
				b = append(b, ',')
			}
			b = str(append(b, `{"key":`...), c.Key)
			b = str(append(b, `,"op":`...), string(c.Op))
			b = str(append(b, `,"checksum":`...), c.Checksum)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Detail) > 0 {
		keys := make([]string, 0, len(r.Detail))
		for k := range r.Detail {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, `,"detail":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = str(b, k)
			b = str(append(b, ':'), r.Detail[k])
		}
		b = append(b, '}')
	}
	return append(b, '}'), ok
}

// plainJSON reports whether encoding/json writes s as itself between
// quotes: printable ASCII only, and none of " \ < > &.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// AuditHash is the hash of the entry at seq with body following the
// entry whose hash is prev: SHA-256 of prev, seq as 8 big-endian bytes,
// and body. Postgres computes the same in SQL (sha256(prev ||
// int8send(seq) || body)).
func AuditHash(prev []byte, seq int64, body []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], uint64(seq))
	h.Write(s[:])
	h.Write(body)
	return h.Sum(nil)
}

// CheckpointMessage is what a checkpoint's signature signs: the chain,
// the Seq, the hash and the time, one a line after a fixed prefix.
func CheckpointMessage(c AuditCheckpoint) []byte {
	return []byte(strings.Join([]string{"teammem audit checkpoint v1", strconv.Quote(c.Chain), strconv.FormatInt(c.Seq, 10),
		hex.EncodeToString(c.Hash), c.At.UTC().Format(time.RFC3339Nano)}, "\n"))
}

// AuditRecordOfErase is the record of a repository emptied from before
// to after, by whoever ctx's actor is.
func AuditRecordOfErase(by AuditActor, before, after RepoState, at time.Time) AuditRecord {
	return AuditRecord{Repo: after.Repo, At: at, Action: AuditErase, By: by, Version: after.Version, Checksum: after.Checksum,
		Detail: map[string]string{"entries": strconv.Itoa(before.Entries), "bytes": strconv.FormatInt(before.Bytes, 10),
			"version": strconv.FormatInt(before.Version, 10)}}
}

// AuditRecordOfToken is the record of the token t issued.
func AuditRecordOfToken(by AuditActor, t IssuedToken) AuditRecord {
	return AuditRecord{Repo: ServerChain, At: t.IssuedAt, Action: AuditTokenCreate, By: by,
		Detail: map[string]string{"token": t.ID, "subject": t.Subject, "grants": strings.Join(t.Grants, " "),
			"expires": t.ExpiresAt.UTC().Format(time.RFC3339)}}
}

// AuditRecordOfRevocation is the record of r.
func AuditRecordOfRevocation(by AuditActor, r Revocation) AuditRecord {
	d := map[string]string{}
	if r.TokenID != "" {
		d["token"] = r.TokenID
	} else {
		d["subject"], d["before"] = r.Subject, r.Before.UTC().Format(time.RFC3339Nano)
	}
	return AuditRecord{Repo: ServerChain, At: r.At, Action: AuditTokenRevoke, By: by, Detail: d}
}
