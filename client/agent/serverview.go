package agent

import (
	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
)

// serverView is the engine's copy of the repo on the server: built by a
// full pull, updated by pulls since a version and by successful pushes. It
// reflects the server after every successful exchange: its checksum is the
// dataset checksum of the last answer (pull or push), and "" only while
// the last answer said the repo never held data (404).
type serverView struct {
	loaded   bool
	checksum string // "" while the repo does not exist: push without If-Match
	version  int64
	live     map[string]string // key → entry checksum
	content  map[string]string // key → content
	tombs    map[string]bool
}

// exists reports whether the repo exists on the server, so that a push may
// carry If-Match (which never matches a repo that never held data) and a
// pull If-None-Match.
func (v *serverView) exists() bool { return v.loaded && v.checksum != "" }

// reset makes the view a loaded repo that never held data (a 404).
func (v *serverView) reset() {
	*v = serverView{loaded: true, live: map[string]string{}, content: map[string]string{}, tombs: map[string]bool{}}
}

// replace loads a full pull.
func (v *serverView) replace(m *api.TeamMemory) {
	v.reset()
	v.apply(m)
}

// pushed records the dataset a successful push left: the repo exists from
// then on, whatever the view said before.
func (v *serverView) pushed(resp *api.PutResponse) {
	v.checksum, v.version = resp.Checksum, resp.Version
}

// apply merges a pull (full or since) into the view. Entry checksums are
// computed from the content received rather than trusted.
func (v *serverView) apply(m *api.TeamMemory) {
	for k, c := range m.Content.Entries {
		v.put(k, c)
	}
	for k := range m.Content.DeletedEntries {
		v.del(k)
	}
	v.checksum, v.version = m.Checksum, m.Version
}

// applySince merges a pull since version since into the view and reports
// whether the result can be trusted: the server's version did not go back
// (its data was not reset) and the checksum of the view's live entries is
// the server's. When it returns false the view must be pulled in full.
func (v *serverView) applySince(m *api.TeamMemory, since int64) bool {
	if m.Version < since {
		return false
	}
	v.apply(m)
	return protocol.DatasetChecksum(v.live) == m.Checksum
}

// put records a live key.
func (v *serverView) put(key, content string) {
	v.live[key] = protocol.EntryChecksum([]byte(content))
	v.content[key] = content
	delete(v.tombs, key)
}

// del records a tombstone.
func (v *serverView) del(key string) {
	delete(v.live, key)
	delete(v.content, key)
	v.tombs[key] = true
}
