package writeplan

import (
	"slices"
	"sync"
	"time"

	"github.com/teammem/teammem/server"
)

// Meta keeps the entry metadata (no content) of recently read repositories
// in memory, so that a Snapshot without content and without since — the
// hashes probe every client runs — is built without reading the entries.
// It is filled from a Snapshot read in SQL, moved forward by the store
// after each commit with the plans it committed (only from the version
// they were planned against), and used only at exactly the version of a
// repository state the store read or holds as current: a version's
// entries never change, so a process whose repositories other processes
// write (Postgres) serves them too. The one exception is a purge of
// tombstones, which changes entries without a new version: the store
// clears the cache (with a new generation) when it purges; a purge by
// another process leaves tombstones it removed in this cache until the
// repository's next version, which a client sees as deletions it already
// knew. Safe for concurrent use.
type Meta struct {
	mu    sync.Mutex
	gen   uint64
	repos map[string]*repoMeta
}

// maxMetaRepos bounds how many repositories a Meta holds.
const maxMetaRepos = 256

type repoMeta struct {
	version int64
	entries map[string]metaEntry
}

type metaEntry struct {
	checksum string
	size     int64
	version  int64
	at       time.Time // updated_at of a live entry, deleted_at of a tombstone
	deleted  bool
}

// Generation returns the current generation, to pass to Fill.
func (c *Meta) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// Snapshot builds the metadata snapshot of st from the cache when it holds
// the repository at exactly st.Version.
func (c *Meta) Snapshot(st server.RepoState) (server.Snapshot, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.repos[st.Repo]
	if !ok || m.version != st.Version {
		return server.Snapshot{}, false
	}
	keys := make([]string, 0, len(m.entries))
	for k := range m.entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	snap := server.Snapshot{RepoState: st, Live: make([]server.Entry, 0, st.Entries), Deleted: []server.Tombstone{}}
	for _, k := range keys {
		e := m.entries[k]
		if e.deleted {
			snap.Deleted = append(snap.Deleted, server.Tombstone{Key: k, Version: e.version, DeletedAt: e.at})
		} else {
			snap.Live = append(snap.Live, server.Entry{Key: k, Checksum: e.checksum, Size: e.size, Version: e.version, UpdatedAt: e.at})
		}
	}
	return snap, true
}

// Fill records a metadata snapshot read in SQL at generation gen, unless a
// purge happened since (gen changed) or a newer version is cached.
func (c *Meta) Fill(gen uint64, snap server.Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if m, ok := c.repos[snap.Repo]; ok && m.version >= snap.Version {
		return
	}
	if c.repos == nil {
		c.repos = map[string]*repoMeta{}
	}
	if len(c.repos) >= maxMetaRepos {
		for k := range c.repos {
			delete(c.repos, k)
			break
		}
	}
	m := &repoMeta{version: snap.Version, entries: make(map[string]metaEntry, len(snap.Live)+len(snap.Deleted))}
	for _, e := range snap.Live {
		m.entries[e.Key] = metaEntry{checksum: e.Checksum, size: e.Size, version: e.Version, at: e.UpdatedAt}
	}
	for _, t := range snap.Deleted {
		m.entries[t.Key] = metaEntry{version: t.Version, at: t.DeletedAt, deleted: true}
	}
	c.repos[snap.Repo] = m
}

// Commit moves cached repositories forward by the plans a transaction
// committed, in commit order. A plan the cache already reflects (a read
// that saw the commit before Commit was called) is skipped; a repository
// cached at an older version than the plan's previous one is dropped (it
// is read again in SQL when needed).
func (c *Meta) Commit(plans []*Plan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range plans {
		m, ok := c.repos[p.Repo]
		if !ok {
			continue
		}
		if m.version >= p.Version { // read in SQL once the commit was visible: already there
			continue
		}
		if m.version != p.Version-1 {
			delete(c.repos, p.Repo)
			continue
		}
		for _, ch := range p.Changes {
			if ch.Op == server.OpDelete {
				m.entries[ch.Key] = metaEntry{checksum: ch.Checksum, size: ch.Size, version: p.Version, at: p.At, deleted: true}
			} else {
				m.entries[ch.Key] = metaEntry{checksum: ch.Checksum, size: ch.Size, version: p.Version, at: p.At}
			}
		}
		m.version = p.Version
	}
}

// Clear forgets everything and starts a new generation, so that a SQL read
// begun before a purge committed is not recorded.
func (c *Meta) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.repos = nil
}
