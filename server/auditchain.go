package server

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// AuditBody is the encoding of r the chain hashes and keeps: its JSON,
// whose field order is the struct's and whose Detail keys are sorted; its
// time in UTC to the microsecond, as the stores keep times.
func AuditBody(r AuditRecord) ([]byte, error) {
	r.At = r.At.UTC().Truncate(time.Microsecond)
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode audit record: %w", err)
	}
	return b, nil
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
