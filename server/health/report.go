// Package health reads a repository's topics and tells what keeps the
// memory from serving well: topics saved twice, the same lesson saved
// twice in other words, one setting given two values, index lines that
// link nothing, topics no index line links, an index past what the client
// loads, topics whose code references went stale, topics nobody reads. It
// is pure: Check reads an Input a caller filled from the store and
// returns findings; Plan (tidy.go) turns findings into one changeset that
// fixes what can be fixed mechanically. Nothing here writes.
package health

import (
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
)

// The kinds of finding.
const (
	KindDuplicate         = "duplicate"
	KindNearDuplicate     = "near-duplicate"
	KindConflictingValues = "conflicting-values"
	KindDanglingLink      = "dangling-link"
	KindOrphanTopic       = "orphan-topic"
	KindIndexOverBudget   = "index-over-budget"
	KindStaleReference    = "stale-reference"
	KindUnused            = "unused"
)

// Kinds lists every kind, in the order a report lists them.
var Kinds = []string{KindDuplicate, KindNearDuplicate, KindConflictingValues, KindDanglingLink,
	KindOrphanTopic, KindIndexOverBudget, KindStaleReference, KindUnused}

// Finding is one thing a person may want to fix.
type Finding struct {
	Kind string
	// Keys are the topics it concerns; for a duplicate the first is the
	// one tidy keeps, for a dangling link the index holding the line.
	Keys       []string
	Detail     string  // what was found, in a sentence
	Score      float64 // near-duplicate: the measure (0..1); 0 for other kinds
	Suggestion string  // what would fix it
	// Missing is the key a dangling link names (dangling-link only).
	Missing string
}

// ID names the finding within its repository's reports, while the
// repository keeps what it found: a hash of its kind, keys and missing
// key.
func (f Finding) ID() string {
	h := hashString(f.Kind + "\x00" + strings.Join(f.Keys, "\x00") + "\x00" + f.Missing)
	return strconv.FormatUint(h>>16, 36)
}

// Report is the health of one repository at one version.
type Report struct {
	Repo      string
	Version   int64
	CheckedAt time.Time
	Findings  []Finding // by kind (Kinds' order), then by first key
}

// Count returns how many findings of each kind the report holds (every
// kind present, zero or not).
func (r Report) Count() map[string]int {
	out := make(map[string]int, len(Kinds))
	for _, k := range Kinds {
		out[k] = 0
	}
	for _, f := range r.Findings {
		out[f.Kind]++
	}
	return out
}

// Input is what Check reads of one repository.
type Input struct {
	Repo    string
	Version int64
	Now     time.Time
	// Topics are the live entries with their content, sorted by key.
	Topics []server.Entry
	// Stale are the verdicts of the entries whose references went stale
	// (Service.StaleWarnings); only those made from the live version count.
	Stale []server.StaleVerdict
	// Reads says when each key was last read where the server sees reads;
	// UnusedAfter > 0 turns the unused check on (see unused.go).
	Reads       map[string]time.Time
	ReadsSince  time.Time // when the server began keeping Reads
	UnusedAfter time.Duration
}
