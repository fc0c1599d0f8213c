package health

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// topic is one live entry read for the checks.
type topic struct {
	key, content string
	index        bool
	norm         normalized
	words        []uint64
	sig          [nearHashes]uint64
	values       map[string]statedValue // statedValues
	updated      time.Time
}

// parallel calls f(i) for each i below n, on as many goroutines as the
// process may run at once, and returns when every call has.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				f(i)
			}
		})
	}
	wg.Wait()
}

// Check returns the findings of one repository. Its cost grows with the
// repository's bytes (each topic is read once for each measure) and with
// the near-duplicate pairs compared, which the banding bounds (near.go).
func Check(in Input) Report {
	topics := make([]topic, 0, len(in.Topics))
	live := make(map[string]bool, len(in.Topics))
	for _, e := range in.Topics {
		live[e.Key] = true
		topics = append(topics, topic{key: e.Key, content: e.Content, index: IsIndex(e.Key), updated: e.UpdatedAt})
	}
	lessons := make([]topic, 0, len(topics))
	for _, t := range topics {
		if !t.index {
			lessons = append(lessons, t)
		}
	}
	parallel(len(lessons), func(i int) {
		t := &lessons[i]
		t.norm = normalize(t.content)
		t.words = wordHashes(t.norm.body)
		t.values = statedValues(t.key, t.content)
	})
	common := commonWords(lessons)
	parallel(len(lessons), func(i int) {
		lessons[i].words = dropCommon(lessons[i].words, common)
		lessons[i].sig = signature(lessons[i].words)
	})
	idx := indexLinks(topics)
	dups, rep := duplicates(lessons, linkedKeys(idx))
	var fs []Finding
	fs = append(fs, dups...)
	fs = append(fs, nearDuplicates(lessons, rep, common)...)
	fs = append(fs, conflicts(lessons)...)
	fs = append(fs, danglingLinks(topics, live, idx)...)
	fs = append(fs, orphans(topics, idx)...)
	fs = append(fs, overBudget(topics)...)
	fs = append(fs, staleReferences(in, live)...)
	fs = append(fs, unused(in, lessons)...)
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Compare(slices.Index(Kinds, a.Kind), slices.Index(Kinds, b.Kind))
	})
	return Report{Repo: in.Repo, Version: in.Version, CheckedAt: in.Now, Findings: fs}
}

// staleReferences returns a finding for each live topic whose current
// verdict names stale references.
func staleReferences(in Input, live map[string]bool) []Finding {
	var out []Finding
	for _, v := range in.Stale {
		if !v.Current || len(v.Findings) == 0 || !live[v.Key] {
			continue
		}
		var refs []string
		for _, f := range v.Findings {
			refs = append(refs, fmt.Sprintf("%s (%s)", f.Reference, f.Reason))
		}
		out = append(out, Finding{
			Kind: KindStaleReference,
			Keys: []string{v.Key},
			Detail: fmt.Sprintf("%s names code that is not at commit %.12s: %s", v.Key, v.Commit,
				strings.Join(refs, ", ")),
			Suggestion: fmt.Sprintf("update %s to the code as it is, or archive it", v.Key),
		})
	}
	return out
}

// unused returns, when the check is on, a finding for each topic neither
// read nor written for UnusedAfter: its last read, its last change and
// the time reads began to be kept, whichever is latest, is that long ago.
func unused(in Input, topics []topic) []Finding {
	if in.UnusedAfter <= 0 {
		return nil
	}
	days := int(in.UnusedAfter / (24 * time.Hour))
	var out []Finding
	for _, t := range topics {
		last := latest(in.Reads[t.key], t.updated, in.ReadsSince)
		if in.Now.Sub(last) < in.UnusedAfter {
			continue
		}
		out = append(out, Finding{
			Kind:       KindUnused,
			Keys:       []string{t.key},
			Detail:     fmt.Sprintf("%s has not been read or changed for %d days or more (last: %s)", t.key, days, last.UTC().Format(time.DateOnly)),
			Suggestion: fmt.Sprintf("archive %s (restore brings it back)", t.key),
		})
	}
	return out
}

// latest is the latest of ts.
func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}
