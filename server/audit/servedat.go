package audit

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// Held is what a subject's agent held of a repository at a time, and
// what else it was served around then.
type Held struct {
	// Pull is the last pull (or delta) of the repository made at or
	// before the time: its version is the one the agent held. Nil when
	// none is recorded.
	Pull *server.ServedRecord
	// Others are the other surfaces' records (MCP, web) first made within
	// the server.ServedWindow before the time, latest first.
	Others []server.ServedRecord
	// Index is MEMORY.md as it stood at the held version (its newest
	// revision at or before it); nil when the repository had none.
	Index *server.Revision
	// IndexLines are Index's lines that link an entry: the lines the
	// agent's block carried.
	IndexLines []string
}

// servedLookBack bounds the records HeldAt reads.
const servedLookBack = 200

// HeldAt answers which version of repo subject's agent held at at, which
// index lines its block carried, and what MCP and the web UI served it
// in the window before.
func HeldAt(ctx context.Context, log server.ServedLog, subject, repo string, at time.Time) (Held, error) {
	recs, err := log.ServedBefore(ctx, subject, repo, at, servedLookBack)
	if err != nil {
		return Held{}, err
	}
	var h Held
	for _, r := range recs {
		switch {
		case r.Surface == server.ServedPull || r.Surface == server.ServedDelta:
			if h.Pull == nil {
				h.Pull = &r
			}
		case !r.First.Before(at.Add(-server.ServedWindow)):
			h.Others = append(h.Others, r)
		}
	}
	if h.Pull == nil {
		return h, nil
	}
	rev, err := log.KeyAt(ctx, repo, "MEMORY.md", h.Pull.Version)
	switch {
	case errors.Is(err, server.ErrNotFound):
		return h, nil
	case err != nil:
		return h, err
	}
	h.Index = &rev
	for _, l := range protocol.IndexLines("", rev.Content) {
		if len(l.Keys) > 0 {
			h.IndexLines = append(h.IndexLines, strings.TrimRight(l.Text, "\r\n"))
		}
	}
	return h, nil
}
