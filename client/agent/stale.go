package agent

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/teammem/teammem/client/refcheck"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/memcore"
)

// ageRecheck is how often the ages of the topics are looked at again: they
// change by the day.
const ageRecheck = time.Hour

// staleness holds what the block says may be out of date. It is owned by
// the engine's goroutine.
type staleness struct {
	checker *refcheck.Checker // of root
	root    string
	// count is the number of stale references the last check found, at
	// commit head.
	count int
	head  string
	// days are the topics over the age limit, as of ageAt.
	days  map[string]int
	ageAt time.Time
}

// staleInfo checks the team folder's shared topics against the HEAD of
// checkout (the first checkout of the block) and, with
// BlockConfig.StaleAfter, their age; it returns what the block shows for
// each topic, nil when there is nothing to check against. A topic is read
// only when it changed or HEAD moved (refcheck's cache, by the view's
// checksums).
func (e *Engine) staleInfo(ctx context.Context, checkout string) func(string) teamblock.Stale {
	s := &e.stale
	if s.checker == nil || s.root != checkout {
		s.checker, s.root = refcheck.New(checkout), checkout
	}
	rep, err := s.checker.Check(ctx, e.teamTopics())
	if err != nil {
		s.count, s.head = 0, ""
		return nil // not a checkout, or unreadable: no warnings rather than guessed ones
	}
	s.count, s.head = len(rep.Findings), rep.Head
	refs := map[string][]string{}
	for _, f := range rep.Findings {
		refs[f.Key] = append(refs[f.Key], f.Ref.Text)
	}
	days := e.topicAges()
	return func(key string) teamblock.Stale { return teamblock.Stale{Refs: refs[key], Days: days[key]} }
}

// staleDue reports whether the stale warnings of checkout could differ from
// the last ones: another checkout, HEAD moved (or cannot be read), or the
// topics' ages are due to be looked at again.
func (e *Engine) staleDue(checkout string) bool {
	s := &e.stale
	if s.checker == nil || s.root != checkout {
		return true
	}
	if head, err := s.checker.Head(); err != nil || head != s.head {
		return true
	}
	return e.blocks.cfg.StaleAfter > 0 && e.cfg.Now().Sub(s.ageAt) >= ageRecheck
}

// teamTopics lists the team folder's topic files that the agent shares.
// A file the view scanned and saw unchanged since keeps its checksum as
// version, so that refcheck neither reads nor checks it again; the others
// are read now.
func (e *Engine) teamTopics() []refcheck.Topic {
	keys, err := memcore.TopicFiles(e.cfg.Dir)
	if err != nil {
		return nil
	}
	topics := make([]refcheck.Topic, 0, len(keys))
	for _, key := range keys {
		if e.withheld(key) {
			continue
		}
		t := refcheck.Topic{Key: key, Read: func() (string, error) {
			data, err := memcore.SafeRead(e.cfg.Dir, key)
			return string(data), err
		}, MemoryFile: e.teamFile(path.Dir(key))}
		if f, ok := e.local.files[key]; ok && !e.local.dirty[key] && f.checksum != "" {
			t.Version = f.checksum
		} else if data, err := t.Read(); err == nil {
			t.Content, t.Read = data, nil
		} else {
			continue
		}
		topics = append(topics, t)
	}
	return topics
}

// teamFile reports whether a link destination, relative to the folder
// base of the team folder, names a file of the team folder.
func (e *Engine) teamFile(base string) func(string) bool {
	return func(dest string) bool {
		fi, err := os.Stat(filepath.Join(e.cfg.Dir, filepath.FromSlash(path.Join(base, dest))))
		return err == nil && fi.Mode().IsRegular()
	}
}

// topicAges returns the days of the topics nobody changed or confirmed for
// longer than BlockConfig.StaleAfter (none when it is zero), looked at
// again at most every ageRecheck.
func (e *Engine) topicAges() map[string]int {
	s, after := &e.stale, e.blocks.cfg.StaleAfter
	if after <= 0 {
		return nil
	}
	now := e.cfg.Now()
	if s.days != nil && now.Sub(s.ageAt) < ageRecheck {
		return s.days
	}
	problems, err := memcore.StaleTopics(e.cfg.Dir, after, now)
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
