package audit

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"time"

	"github.com/teammem/teammem/server"
)

// Problem is one place where a chain does not hold.
type Problem struct {
	Chain string
	Seq   int64
	What  string
}

func (p Problem) String() string {
	return fmt.Sprintf("chain %s, entry %d: %s", chainName(p.Chain), p.Seq, p.What)
}

// chainName names a chain for people.
func chainName(chain string) string {
	if chain == server.ServerChain {
		return "(server)"
	}
	return chain
}

// Report is what Verify found.
type Report struct {
	Chains      int
	Entries     int64
	Checkpoints int
	Unsigned    int64 // entries after their chain's last checkpoint
	Problems    []Problem
}

// Verify reads every chain and checks that each entry's hash is its own
// (an edited entry fails), that it follows the one before (a reordered or
// deleted entry fails), that a chain's first entry is its first or follows
// a checkpoint (its anchor after pruning), that each checkpoint is signed
// by pub and matches the entry it names (a chain rewritten with its
// hashes fails), and that each chain ends at its head and at or after its
// last checkpoint (a deleted last entry fails). pub nil skips the
// signatures, and says so as a problem.
func Verify(ctx context.Context, log server.AuditLog, pub ed25519.PublicKey) (Report, error) {
	var r Report
	cps, err := log.AuditCheckpoints(ctx)
	if err != nil {
		return r, err
	}
	heads, err := log.AuditHeads(ctx)
	if err != nil {
		return r, err
	}
	v := &verifier{pub: pub, report: &r, checkpoints: map[string]map[int64]server.AuditCheckpoint{}, heads: map[string]server.AuditHead{}}
	v.checkSignatures(cps)
	for _, h := range heads {
		v.heads[h.Chain] = h
	}
	err = log.AuditEntries(ctx, server.AuditQuery{All: true}, func(e server.AuditEntry) error {
		v.entry(e)
		return nil
	})
	if err != nil {
		return r, err
	}
	v.endChain()
	for chain, h := range v.heads { // chains without entries left
		if !v.seen[chain] {
			v.emptyChain(h)
		}
	}
	r.Chains = len(v.seen)
	return r, nil
}

// verifier walks the entries chain by chain.
type verifier struct {
	pub         ed25519.PublicKey
	report      *Report
	checkpoints map[string]map[int64]server.AuditCheckpoint
	heads       map[string]server.AuditHead
	seen        map[string]bool
	cur         *server.AuditEntry // the last entry of the chain being walked
}

func (v *verifier) problem(chain string, seq int64, format string, args ...any) {
	v.report.Problems = append(v.report.Problems, Problem{Chain: chain, Seq: seq, What: fmt.Sprintf(format, args...)})
}

func (v *verifier) checkSignatures(cps []server.AuditCheckpoint) {
	if v.pub == nil && len(cps) > 0 {
		v.problem("", 0, "no public key given: %d checkpoint signatures not checked", len(cps))
	}
	for _, c := range cps {
		v.report.Checkpoints++
		if v.pub != nil && (c.KeyID != KeyID(v.pub) || !ed25519.Verify(v.pub, server.CheckpointMessage(c), c.Signature)) {
			v.problem(c.Chain, c.Seq, "checkpoint of %s is not signed by this server's key (key %s)", c.At.Format(time.RFC3339), c.KeyID)
			continue
		}
		if v.checkpoints[c.Chain] == nil {
			v.checkpoints[c.Chain] = map[int64]server.AuditCheckpoint{}
		}
		v.checkpoints[c.Chain][c.Seq] = c
	}
}

func (v *verifier) entry(e server.AuditEntry) {
	if v.seen == nil {
		v.seen = map[string]bool{}
	}
	if v.cur != nil && v.cur.Chain != e.Chain {
		v.endChain()
	}
	v.report.Entries++
	if v.cur == nil {
		v.seen[e.Chain] = true
		v.startChain(e)
	} else if e.Seq != v.cur.Seq+1 {
		v.problem(e.Chain, e.Seq, "entries %d to %d are missing", v.cur.Seq+1, e.Seq-1)
	} else if !bytes.Equal(e.Prev, v.cur.Hash) {
		v.problem(e.Chain, e.Seq, "does not follow entry %d (its previous hash differs): reordered, or entry %d was replaced", v.cur.Seq, v.cur.Seq)
	}
	if !bytes.Equal(server.AuditHash(e.Prev, e.Seq, e.Body), e.Hash) {
		v.problem(e.Chain, e.Seq, "its hash is not its content's: the entry was edited")
	}
	v.checkBody(e)
	if c, ok := v.checkpoints[e.Chain][e.Seq]; ok && !bytes.Equal(c.Hash, e.Hash) {
		v.problem(e.Chain, e.Seq, "differs from the checkpoint signed at %s: the chain was rewritten", c.At.Format(time.RFC3339))
	}
	v.cur = &e
}

// startChain checks a chain's first entry: the chain's first, or the
// entry after its anchor.
func (v *verifier) startChain(e server.AuditEntry) {
	if e.Seq == 1 {
		if len(e.Prev) != 0 {
			v.problem(e.Chain, e.Seq, "the chain's first entry names a previous one")
		}
		return
	}
	c, ok := v.checkpoints[e.Chain][e.Seq-1]
	switch {
	case !ok:
		v.problem(e.Chain, e.Seq, "the chain starts here with no signed checkpoint at entry %d: earlier entries were deleted", e.Seq-1)
	case !bytes.Equal(c.Hash, e.Prev):
		v.problem(e.Chain, e.Seq, "does not follow the checkpoint it starts from")
	}
}

// checkBody checks that the columns read beside the body say what it says.
func (v *verifier) checkBody(e server.AuditEntry) {
	var rec server.AuditRecord
	if err := json.Unmarshal(e.Body, &rec); err != nil {
		v.problem(e.Chain, e.Seq, "its record is not JSON: %v", err)
		return
	}
	if rec.Repo != e.Chain || rec.By.Subject != e.Subject || !rec.At.Equal(e.At) {
		v.problem(e.Chain, e.Seq, "its chain, subject or time columns differ from its record")
	}
}

// endChain checks the end of the chain walked: at its head and at or
// after its last checkpoint.
func (v *verifier) endChain() {
	if v.cur == nil {
		return
	}
	last := *v.cur
	v.cur = nil
	for seq, c := range v.checkpoints[last.Chain] {
		if seq > last.Seq {
			v.problem(last.Chain, seq, "signed at %s but the log ends at entry %d: entries were deleted", c.At.Format(time.RFC3339), last.Seq)
		}
	}
	h, ok := v.heads[last.Chain]
	switch {
	case !ok:
		v.problem(last.Chain, last.Seq, "the chain has no head")
	case h.Seq != last.Seq:
		v.problem(last.Chain, h.Seq, "the head names entry %d but the log ends at entry %d: entries were deleted", h.Seq, last.Seq)
	case !bytes.Equal(h.Hash, last.Hash):
		v.problem(last.Chain, last.Seq, "the last entry is not the one the head names")
	}
	v.report.Unsigned += max(0, v.unsignedAfter(last))
}

// unsignedAfter counts the entries of last's chain after its last
// checkpoint.
func (v *verifier) unsignedAfter(last server.AuditEntry) int64 {
	var top int64
	for seq := range v.checkpoints[last.Chain] {
		top = max(top, seq)
	}
	return last.Seq - top
}

// emptyChain checks a chain whose every entry is gone: only pruning to a
// checkpoint at its head leaves none.
func (v *verifier) emptyChain(h server.AuditHead) {
	c, ok := v.checkpoints[h.Chain][h.Seq]
	if !ok || !bytes.Equal(c.Hash, h.Hash) {
		v.problem(h.Chain, h.Seq, "the head names entry %d but the log holds none of the chain: entries were deleted", h.Seq)
	}
}
