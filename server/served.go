package server

import (
	"context"
	"time"
)

// ServedSurface is how a version of a repository reached a reader.
type ServedSurface string

// The surfaces that serve a repository's content.
const (
	ServedPull  ServedSurface = "pull"  // GET of the team memory (full, hashes, or 304 at the version held)
	ServedDelta ServedSurface = "delta" // GET ?since=V
	ServedMCP   ServedSurface = "mcp"   // an MCP read, list or search, with the keys it returned
	ServedWeb   ServedSurface = "web"   // a web UI view of the repository or an entry
)

// ServedWindow is the span one served record covers: every serving of
// one version of a repository to one subject through one surface within
// it is one record (per replica).
const ServedWindow = time.Hour

// MaxServedKeys bounds the keys one served record lists.
const MaxServedKeys = 256

// Served is one serving: a reader's subject was handed version Version
// of Repo through Surface at At; Keys are the entries an MCP read or
// search returned (none for a pull: it carries the whole version).
type Served struct {
	Subject string
	Repo    string
	Version int64
	Surface ServedSurface
	Keys    []string
	At      time.Time
}

// ServedRecorder takes the servings of every surface. Served must not
// block or fail: it is called on the read path.
type ServedRecorder interface {
	Served(Served)
}

// ServedRecord is what a store keeps of the servings of one version of a
// repository to one subject through one surface in one ServedWindow, by
// one replica: when first and last, how often, and the keys returned.
type ServedRecord struct {
	Subject string
	Repo    string
	Version int64
	Surface ServedSurface
	Window  time.Time // the window's start
	Replica string    // the process that served them
	First   time.Time
	Last    time.Time
	Count   int64
	Keys    []string // sorted, at most MaxServedKeys
}

// ServedLog is a store's record of what was served. Both stores
// implement it; safe for concurrent use by many processes.
type ServedLog interface {
	// SaveServed saves recs, each replacing the record saved before of
	// the same subject, repository, surface, version, window and
	// replica (a replica saves its open records again as they grow).
	SaveServed(ctx context.Context, recs []ServedRecord) error
	// ServedBefore returns the records of subject's servings of repo
	// first made at or before at, the latest first, at most limit.
	ServedBefore(ctx context.Context, subject, repo string, at time.Time, limit int) ([]ServedRecord, error)
	// PruneServed removes the records last served before before and
	// returns how many.
	PruneServed(ctx context.Context, before time.Time) (int64, error)
	// KeyAt returns key's newest revision at or before version, with its
	// content (empty for a delete). Errors: ErrNotFound when there is none.
	KeyAt(ctx context.Context, repo, key string, version int64) (Revision, error)
}

// RecordServed tells the configured recorder that p was served version
// of repo (canonical) through surface, with keys; nothing without a
// recorder.
func (s *Service) RecordServed(p Principal, repo string, version int64, surface ServedSurface, keys ...string) {
	if s.cfg.Served == nil || version <= 0 {
		return
	}
	s.cfg.Served.Served(Served{Subject: p.Subject, Repo: repo, Version: version, Surface: surface, Keys: keys, At: s.cfg.Now()})
}
