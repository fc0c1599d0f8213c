package server

import "time"

// Event is one version of a repository as the events stream tells it: the
// keys the write that made it changed and deleted, who wrote it, when, and
// the dataset checksum after it. Events are shared by every subscriber of
// a process and must not be modified once published.
type Event struct {
	Repo     string
	Version  int64
	Checksum string // the dataset checksum at Version ("" for versions written before it was recorded)
	Changed  []string
	Deleted  []string
	Author   string
	At       time.Time
	// Provenance is the version's (UnknownProvenance for a version
	// written before it was recorded).
	Provenance Provenance
}

// EventOf returns the event of a successful write that changed something.
func EventOf(w Write, res WriteResult) *Event {
	return &Event{Repo: res.State.Repo, Version: res.State.Version, Checksum: res.State.Checksum,
		Changed: res.Changed, Deleted: res.Deleted, Author: w.Author, At: res.State.UpdatedAt,
		Provenance: w.Provenance}
}
