package audit

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"time"

	"github.com/teammem/teammem/server"
)

// Line is one line of an export: an entry, its record as it was hashed.
type Line struct {
	Chain  string          `json:"chain"`
	Seq    int64           `json:"seq"`
	At     time.Time       `json:"at"`
	Prev   string          `json:"prev"`
	Hash   string          `json:"hash"`
	Record json.RawMessage `json:"record"`
}

// Export writes the entries q selects to w as JSON lines, by chain and
// Seq. A line's record is the bytes the chain hashed: with prev and seq it
// gives the line's hash again (server.AuditHash).
func Export(ctx context.Context, log server.AuditLog, q server.AuditQuery, w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	var n int64
	err := log.AuditEntries(ctx, q, func(e server.AuditEntry) error {
		n++
		return enc.Encode(Line{Chain: e.Chain, Seq: e.Seq, At: e.At, Prev: hex.EncodeToString(e.Prev), Hash: hex.EncodeToString(e.Hash),
			Record: json.RawMessage(e.Body)})
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}
