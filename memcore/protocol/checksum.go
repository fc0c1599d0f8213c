package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strings"
)

// ChecksumPrefix starts every checksum memcore computes.
const ChecksumPrefix = "sha256:"

// EmptyDatasetChecksum is the dataset checksum of a repository without live
// entries: the SHA-256 of no lines.
const EmptyDatasetChecksum = ChecksumPrefix + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// EntryChecksum returns the checksum of one entry's content (protocol.md §2):
// "sha256:" and the lowercase hex SHA-256 of the bytes.
func EntryChecksum(content []byte) string {
	sum := sha256.Sum256(content)
	return ChecksumPrefix + hex.EncodeToString(sum[:])
}

// ValidChecksum reports whether s has the form of a checksum memcore
// computes: ChecksumPrefix and 64 lowercase hex digits.
func ValidChecksum(s string) bool {
	hexPart, ok := strings.CutPrefix(s, ChecksumPrefix)
	if !ok || len(hexPart) != 2*sha256.Size {
		return false
	}
	for _, c := range []byte(hexPart) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// DatasetChecksum returns the checksum of a repository's live entries
// (protocol.md §3), given each live key's entry checksum: "sha256:" and the
// hex SHA-256 of, for each key in byte order, the key, a 0x00 byte, its entry
// checksum and a 0x0A byte. An empty or nil map gives EmptyDatasetChecksum.
func DatasetChecksum(entries map[string]string) string {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := NewDatasetHasher()
	for _, k := range keys {
		h.Add(k, entries[k])
	}
	return h.Sum()
}

// DatasetHasher computes a dataset checksum from entries that arrive already
// sorted, as from a store that reads keys in order, without building a map.
// The zero value is not usable; call NewDatasetHasher. A DatasetHasher is not
// safe for concurrent use.
type DatasetHasher struct {
	h   hash.Hash
	buf []byte // one line, reused to avoid an allocation per Add
}

// NewDatasetHasher returns a hasher of no entries.
func NewDatasetHasher() *DatasetHasher {
	return &DatasetHasher{h: sha256.New()}
}

// Add appends one live entry. Add must be called once per key, in increasing
// byte order of key (Go string comparison, as ORDER BY key COLLATE "C" in
// SQL); otherwise Sum returns a checksum that matches no other party's.
func (d *DatasetHasher) Add(key, entryChecksum string) {
	d.buf = append(d.buf[:0], key...)
	d.buf = append(d.buf, 0)
	d.buf = append(d.buf, entryChecksum...)
	d.buf = append(d.buf, '\n')
	d.h.Write(d.buf) // writes to a hash.Hash never fail
}

// Clone returns an independent hasher of the entries added so far, so that
// a caller can keep the state after a prefix of the keys and, when a later
// key changes, hash only from there on. It fails (wrapping
// errors.ErrUnsupported) where SHA-256 states cannot be cloned, as under
// GOFIPS140=v1.0.0.
func (d *DatasetHasher) Clone() (*DatasetHasher, error) {
	c, ok := d.h.(hash.Cloner)
	if !ok {
		return nil, fmt.Errorf("clone dataset hasher: %w", errors.ErrUnsupported)
	}
	h, err := c.Clone()
	if err != nil {
		return nil, fmt.Errorf("clone dataset hasher: %w", err)
	}
	return &DatasetHasher{h: h}, nil
}

// Sum returns the dataset checksum of the entries added so far. More entries
// may be added afterwards.
func (d *DatasetHasher) Sum() string {
	var buf [sha256.Size]byte
	return ChecksumPrefix + hex.EncodeToString(d.h.Sum(buf[:0]))
}
