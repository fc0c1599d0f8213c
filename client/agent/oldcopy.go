package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/teammem/teammem/client"
)

// HistoryLookup tells which contents a repo's keys held once (see
// client.Client.Seen); a Remote that is one lets the engine tell, on a
// folder's first sync without a journal, an old copy from an edit.
type HistoryLookup interface {
	Seen(ctx context.Context, repo string, entries map[string]string) (map[string]int64, error)
}

var _ HistoryLookup = (*client.Client)(nil)

// oldCopies returns the local keys that are old copies (Input.OldCopies):
// while the journal is unsettled, every local file the journal does not
// know whose key the server holds with other content or lists as deleted
// is looked up in the key's history. Nothing is asked once the journal is
// settled, of a Remote that cannot look up history, or of a server older
// than the lookup (said once in the report's warnings: such files are then
// taken for edits). Any other failure ends the cycle before anything is
// decided.
func (e *Engine) oldCopies(ctx context.Context, local map[string]string, r *Report) (map[string]bool, error) {
	lookup, ok := e.cfg.Remote.(HistoryLookup)
	if !e.cfg.Journal.Unsettled || !ok || e.noHistoryLookup {
		return nil, nil
	}
	ask := map[string]string{}
	for k, l := range local {
		if _, known := e.cfg.Journal.Entries[k]; known {
			continue
		}
		if s := e.view.live[k]; s != l && (s != "" || e.view.tombs[k]) {
			ask[k] = l
		}
	}
	if len(ask) == 0 {
		return nil, nil
	}
	seen, err := lookup.Seen(ctx, e.cfg.Repo, ask)
	if errors.Is(err, client.ErrNotFound) { // a server without POST /api/v1/seen
		e.noHistoryLookup = true
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"the server cannot tell an old copy from an edit (it is older than this agent): taken for edits: %s unknown to the journal",
			Plural(len(ask), "local file", "local files")))
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up the server's history of %s: %w", Plural(len(ask), "local file", "local files"), err)
	}
	old := make(map[string]bool, len(seen))
	for k := range seen {
		old[k] = true
	}
	return old, nil
}
