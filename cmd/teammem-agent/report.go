package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/teammem/teammem/client/agent"
)

// reportJSON is the --json form of one command's outcome (or one event of
// run), as spec/cli.md requires: the engine's report with the command, the
// event and the error, every list present even when empty.
type reportJSON struct {
	Command string `json:"command"`
	Event   string `json:"event,omitempty"`
	Repo    string `json:"repo"`
	agent.Report
	Error string `json:"error,omitempty"`
}

// toJSON converts an engine report; err is the explained error, if any.
func toJSON(command, repo string, r agent.Report, err error) reportJSON {
	r.Pulled, r.Pushed, r.Deleted, r.Conflicts = nonNil(r.Pulled), nonNil(r.Pushed), nonNil(r.Deleted), nonNil(r.Conflicts)
	r.PendingPull, r.Warnings, r.Block = nonNil(r.PendingPull), nonNil(r.Warnings), nonNil(r.Block)
	r.Skipped = nonNil(r.Skipped)
	out := reportJSON{Command: command, Repo: repo, Report: r}
	if err != nil {
		out.Error = err.Error()
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// printer writes command outcomes, as JSON lines or as text. It is safe
// for concurrent use.
type printer struct {
	mu      sync.Mutex
	w       io.Writer
	command string
	json    bool
}

func newPrinter(e *cliEnv, command string, asJSON bool) *printer {
	return &printer{w: e.Stdout, command: command, json: asJSON}
}

// report prints one engine report; event names a run event ("" for a
// one-shot command) and err is the explained error of the cycle.
func (p *printer) report(repo, event string, r agent.Report, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		j := toJSON(p.command, repo, r, err)
		j.Event = event
		p.emit(j)
		return
	}
	printText(p.w, repo, r)
}

// emit writes v as one JSON line; callers hold mu.
func (p *printer) emit(v any) {
	enc := json.NewEncoder(p.w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // stdout gone: nothing better to do
}

// object prints v as one JSON line (for commands with their own shape).
func (p *printer) object(v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.emit(v)
}

// printText writes a report for a person.
func printText(w io.Writer, repo string, r agent.Report) {
	list := func(verb string, keys []string) {
		if len(keys) > 0 {
			fmt.Fprintf(w, "%s %d: %s\n", verb, len(keys), quoteList(keys))
		}
	}
	list("pulled", r.Pulled)
	list("pushed", r.Pushed)
	list("deleted", r.Deleted)
	list("not pushed, changed on the server (run pull or sync)", r.PendingPull)
	for _, c := range r.Conflicts {
		fmt.Fprintf(w, "conflict: your version was saved as %q; the server's version is in place\n", c)
	}
	for _, a := range r.Awaiting {
		fmt.Fprintf(w, "%q: awaiting review (#%d)\n", a.Path, a.Proposal)
	}
	for _, j := range r.Rejections {
		fmt.Fprintf(w, "%q: proposal #%d was %s by %s%s; the reviewed text is in place", j.Path, j.Proposal, j.State, j.By, commentOf(j.Comment))
		if j.Copy != "" {
			fmt.Fprintf(w, ", yours was saved as %q", j.Copy)
		}
		fmt.Fprintln(w)
	}
	for _, s := range r.Skipped {
		fmt.Fprintln(w, s.String())
	}
	printConsolidation(w, r)
	for _, s := range r.Notes {
		fmt.Fprintln(w, "note:", s)
	}
	for _, s := range r.Warnings {
		fmt.Fprintln(w, "warning:", s)
	}
	for _, s := range r.Block {
		fmt.Fprintln(w, "warning:", s)
	}
	if r.Token != "" {
		fmt.Fprintln(w, "warning:", r.Token)
	}
	switch {
	case r.Checksum != "":
		fmt.Fprintf(w, "%s at version %d (%s)\n", repo, r.Version, shortSum(r.Checksum))
	case r.Err == nil && len(r.Pulled)+len(r.Pushed)+len(r.Deleted)+len(r.Conflicts)+len(r.PendingPull)+len(r.Skipped)+len(r.Warnings)+len(r.Held) == 0:
		fmt.Fprintf(w, "%s has no team memory on the server yet and the team folder holds none: nothing to sync\n", repo)
	}
}

// printConsolidation says which changes a consolidation holds, or that the
// one that held them ended.
func printConsolidation(w io.Writer, r agent.Report) {
	c := r.Consolidation
	switch {
	case c == nil:
	case c.Ended == "":
		fmt.Fprintf(w, "held %d while a consolidation rewrites this memory (pid %d since %s), pushed as one write when it ends: %s\n",
			len(r.Held), c.PID, c.Since.Local().Format(time.RFC3339), quoteList(r.Held))
	default:
		fmt.Fprintf(w, "the consolidation by pid %d (since %s) ended: %s\n", c.PID, c.Since.Local().Format(time.RFC3339), c.Ended)
	}
}

// commentOf is a reviewer's comment as printed after a decision.
func commentOf(c string) string {
	if c == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", c)
}

// quoteList quotes keys (so that control characters cannot reach the
// terminal), at most 20 of them.
func quoteList(keys []string) string { return agent.QuoteList(keys, 20) }

// shortSum abbreviates a dataset checksum for people.
func shortSum(s string) string {
	if len(s) > 19 {
		return s[:19] + "…"
	}
	return s
}

// incomplete returns the error of a one-shot command whose cycle succeeded
// but left something behind (skipped files, conflicts, held deletions,
// keys refused), or nil when everything moved.
func incomplete(r agent.Report) error {
	var parts []string
	if n := len(r.Skipped); n > 0 {
		parts = append(parts, plural(n, "file was", "files were")+" skipped")
	}
	if n := len(r.Conflicts); n > 0 {
		parts = append(parts, plural(n, "conflict copy was", "conflict copies were")+" written")
	}
	if n := len(r.PendingPull); n > 0 {
		parts = append(parts, plural(n, "key waits", "keys wait")+" for a pull")
	}
	if n := len(r.Held); n > 0 {
		parts = append(parts, plural(n, "change is", "changes are")+" held while a consolidation runs (the running agent pushes them when it ends)")
	}
	if n := len(r.Warnings); n > 0 {
		parts = append(parts, plural(n, "warning needs", "warnings need")+" attention")
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("not everything was synced: %s (see above)", strings.Join(parts, ", "))
}

// plural formats n with the singular or plural noun phrase (agent.Plural).
func plural(n int, one, many string) string { return agent.Plural(n, one, many) }
