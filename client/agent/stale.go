package agent

import (
	"context"
	"os"
	"time"

	"github.com/teammem/teammem/client/refcheck"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// ageRecheck is how often the ages of the topics are looked at again: they
// change by the day.
const ageRecheck = time.Hour

// staleRefs checks what the block says may be out of date: the code
// references of the shared topics against a checkout's HEAD, and the
// topics' ages. The block writer asks it when it renders; its findings
// are reported to the server by staleReport. It is owned by the engine's
// goroutine.
type staleRefs struct {
	dir string // the team folder
	// after is BlockConfig.StaleAfter; now the engine's clock.
	after time.Duration
	now   func() time.Time

	checker *refcheck.Checker // of root
	root    string
	// count is the number of stale references the last check found, at
	// commit head, committed at headTime on branch ("" detached).
	count    int
	head     string
	headTime time.Time
	branch   string
	// days are the topics over the age limit, as of ageAt.
	days  map[string]int
	ageAt time.Time
	// The last check's entry checksum of each topic checked and its
	// findings by topic, for the report to the server (at commit head).
	checked  map[string]string
	findings map[string][]refcheck.Finding
	// unsent says a check ran whose results have not been reported yet
	// (or whose report failed and is to be tried again).
	unsent bool
}

// check checks the cycle's shared topics against the HEAD of checkout
// (the first checkout of the block) and, with an age limit, their age; it
// returns what the block shows for each topic, nil when there is nothing
// to check against. A topic is read only when it changed or HEAD moved
// (refcheck's cache, by the view's checksums).
func (s *staleRefs) check(ctx context.Context, c *cycleEnd, checkout string) func(string) teamblock.Stale {
	if s.checker == nil || s.root != checkout {
		s.checker, s.root = refcheck.New(checkout), checkout
	}
	topics := c.topics()
	rep, err := s.checker.Check(ctx, topics)
	if err != nil {
		s.count, s.head = 0, ""
		return nil // not a checkout, or unreadable: no warnings rather than guessed ones
	}
	s.count, s.head, s.headTime, s.branch = len(rep.Findings), rep.Head, rep.CommittedAt, rep.Branch
	refs := map[string][]string{}
	s.checked, s.findings, s.unsent = make(map[string]string, len(topics)), map[string][]refcheck.Finding{}, true
	for _, t := range topics {
		if t.Version == "" {
			t.Version = protocol.EntryChecksum([]byte(t.Content))
		}
		s.checked[t.Key] = t.Version
	}
	for _, f := range rep.Findings {
		refs[f.Key] = append(refs[f.Key], f.Ref.Text)
		s.findings[f.Key] = append(s.findings[f.Key], f)
	}
	days := s.topicAges()
	return func(key string) teamblock.Stale { return teamblock.Stale{Refs: refs[key], Days: days[key]} }
}

// due reports whether the stale warnings of checkout could differ from
// the last ones: another checkout, HEAD moved (or cannot be read), or the
// topics' ages are due to be looked at again.
func (s *staleRefs) due(checkout string) bool {
	if s.checker == nil || s.root != checkout {
		return true
	}
	if head, err := s.checker.Head(); err != nil || head != s.head {
		return true
	}
	return s.after > 0 && s.now().Sub(s.ageAt) >= ageRecheck
}

// topicAges returns the days of the topics nobody changed or confirmed for
// longer than the age limit (none without one), looked at again at most
// every ageRecheck.
func (s *staleRefs) topicAges() map[string]int {
	if s.after <= 0 {
		return nil
	}
	now := s.now()
	if s.days != nil && now.Sub(s.ageAt) < ageRecheck {
		return s.days
	}
	problems, err := memcore.StaleTopics(s.dir, s.after, now)
	if err != nil {
		return s.days
	}
	s.days, s.ageAt = map[string]int{}, now
	for _, p := range problems {
		if fi, err := os.Stat(p.Path); err == nil {
			s.days[p.Key] = int(now.Sub(fi.ModTime()).Hours() / 24)
		}
	}
	return s.days
}

// staleCount counts the stale references of the team folder dir's topics
// against the first checkout's HEAD; 0 when there is no checkout or it
// cannot be read.
func staleCount(ctx context.Context, checkouts func() ([]string, error), dir string) int {
	roots, err := checkouts()
	if err != nil || len(roots) == 0 {
		return 0
	}
	rep, err := refcheck.CheckFolder(ctx, roots[0], dir)
	if err != nil {
		return 0
	}
	return len(rep.Findings)
}
