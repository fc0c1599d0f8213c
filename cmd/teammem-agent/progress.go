package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/agent"
)

// isTerminal reports whether w is a character device (a terminal), the
// portable check that needs no terminal library.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressRemote shows on a terminal what a pull or push is doing: one
// status line, rewritten in place, naming the request in flight and the
// entries moved so far. The engine reports per cycle only, so progress is
// counted at the wire: requests, entries and bytes.
type progressRemote struct {
	agent.Remote
	w      io.Writer
	mu     sync.Mutex
	pushed int  // entries pushed so far
	dirty  bool // a status line is on screen
}

// withProgress wraps r when w is a terminal and output is for people.
func withProgress(r agent.Remote, w io.Writer, asJSON bool) agent.Remote {
	if asJSON || !isTerminal(w) {
		return r
	}
	return &progressRemote{Remote: r, w: w}
}

// Get shows the pull in flight.
func (p *progressRemote) Get(ctx context.Context, repo string, opts client.GetOptions) (*api.TeamMemory, error) {
	p.status("pulling %s…", repo)
	m, err := p.Remote.Get(ctx, repo, opts)
	p.clear()
	return m, err
}

// Put shows each batch and the running total.
func (p *progressRemote) Put(ctx context.Context, repo string, req api.PutRequest, ifMatch string) (*api.PutResponse, error) {
	n, size := len(req.Entries)+len(req.SoftDeleteKeys), 0
	for k, v := range req.Entries {
		size += len(k) + len(v)
	}
	p.mu.Lock()
	sent := p.pushed
	p.mu.Unlock()
	p.status("pushing %s: %s sent, %d more in this batch (%d kB)…", repo, plural(sent, "entry", "entries"), n, size/1000)
	resp, err := p.Remote.Put(ctx, repo, req, ifMatch)
	if err == nil {
		p.mu.Lock()
		p.pushed += n
		p.mu.Unlock()
	}
	p.clear()
	return resp, err
}

// status rewrites the status line.
func (p *progressRemote) status(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K"+format, a...)
	p.dirty = true
}

// clear erases the status line.
func (p *progressRemote) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dirty {
		fmt.Fprint(p.w, "\r\033[K")
		p.dirty = false
	}
}
