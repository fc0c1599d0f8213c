package health

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Near-duplicates: the same lesson saved twice in other words.
//
// The measure is the Jaccard similarity of the two topics' word sets
// (body only, each word once, without the words most topics use: in a
// repository of commonFloor topics or more, those found in more than a
// tenth of them), after leaving out the lines both open with:
// a header two topics share (a template, a boilerplate notice) says
// nothing of whether they teach the same thing, so two topics alike only
// there score what their bodies share. When one topic is the other's
// opening lines whole, the whole texts are compared. A pair scoring
// NearThreshold or more is a finding.
//
// Pairs are not all compared: a MinHash signature of each topic's word
// set (nearHashes values) is cut into nearBands bands of nearRows
// values, and only topics equal in some band are compared (locality-
// sensitive hashing). A pair of Jaccard similarity s is compared with
// probability 1-(1-s^3)^24: 0.96 at 0.5, 0.999 at 0.7, under 0.2 at 0.2.
// The work grows with the topics times their words, plus the pairs
// compared; a band value shared by more than maxBucket topics (a
// template most topics follow) is skipped rather than compared pair by
// pair, so no repository makes it quadratic.
const (
	NearThreshold = 0.5
	nearBands     = 24
	nearRows      = 3
	nearHashes    = nearBands * nearRows
	maxBucket     = 64
	commonFloor   = 50
)

// commonWords returns the words found in more than a tenth of topics, in a
// repository of commonFloor topics or more: words that say nothing of
// what a topic teaches, and would make every pair look alike.
func commonWords(topics []topic) map[uint64]bool {
	if len(topics) < commonFloor {
		return nil
	}
	df := map[uint64]int{}
	for _, t := range topics {
		for _, w := range t.words {
			df[w]++
		}
	}
	common := map[uint64]bool{}
	for w, n := range df {
		if n > len(topics)/10 {
			common[w] = true
		}
	}
	return common
}

// dropCommon returns words without the common ones (in place).
func dropCommon(words []uint64, common map[uint64]bool) []uint64 {
	if len(common) == 0 {
		return words
	}
	return slices.DeleteFunc(words, func(w uint64) bool { return common[w] })
}

// nearSeeds are the odd multipliers and the addends of the MinHash
// permutations, fixed so that a report is the same every time.
var nearSeeds = func() (s [nearHashes][2]uint64) {
	x := uint64(0x9e3779b97f4a7c15)
	for i := range s {
		x = mix(x + uint64(i))
		s[i][0] = x | 1
		x = mix(x)
		s[i][1] = x
	}
	return s
}()

// signature is the MinHash signature of a word set.
func signature(words []uint64) [nearHashes]uint64 {
	var sig [nearHashes]uint64
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	for _, w := range words {
		for i := range sig {
			if v := nearSeeds[i][0]*w + nearSeeds[i][1]; v < sig[i] {
				sig[i] = v
			}
		}
	}
	return sig
}

// candidates returns the pairs (i < j) of topics equal in some band of
// their signatures, sorted, each once; topics with no words and topics
// of one duplicate group are left out (rep: duplicates' groups).
func candidates(topics []topic, rep []int) [][2]int32 {
	seen := map[uint64]struct{}{}
	var pairs [][2]int32
	buckets := make(map[uint64][]int32, len(topics))
	for b := range nearBands {
		clear(buckets)
		for i, t := range topics {
			if len(t.words) == 0 || rep[i] != i {
				continue
			}
			h := uint64(b) + 1
			for _, v := range t.sig[b*nearRows : (b+1)*nearRows] {
				h = mix(h ^ v)
			}
			buckets[h] = append(buckets[h], int32(i))
		}
		for _, members := range buckets {
			if len(members) < 2 || len(members) > maxBucket {
				continue
			}
			for x, i := range members {
				for _, j := range members[x+1:] {
					id := uint64(i)<<32 | uint64(j)
					if _, ok := seen[id]; !ok {
						seen[id] = struct{}{}
						pairs = append(pairs, [2]int32{i, j})
					}
				}
			}
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int32) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	return pairs
}

// nearScore is the measure of two topics (see above).
func nearScore(a, b topic, common map[uint64]bool) float64 {
	p := 0
	for p < len(a.norm.body) && p < len(b.norm.body) && a.norm.body[p] == b.norm.body[p] {
		p++
	}
	if p == 0 || p == len(a.norm.body) || p == len(b.norm.body) {
		return jaccard(a.words, b.words)
	}
	return jaccard(dropCommon(wordHashes(a.norm.body[p:]), common), dropCommon(wordHashes(b.norm.body[p:]), common))
}

// nearDuplicates returns a finding for each pair of distinct topics (not
// duplicates of each other) scoring NearThreshold or more.
func nearDuplicates(topics []topic, rep []int, common map[uint64]bool) []Finding {
	var out []Finding
	for _, p := range candidates(topics, rep) {
		a, b := topics[p[0]], topics[p[1]]
		s := nearScore(a, b, common)
		if s < NearThreshold {
			continue
		}
		score := math.Round(s*100) / 100
		out = append(out, Finding{
			Kind:   KindNearDuplicate,
			Keys:   []string{a.key, b.key},
			Score:  score,
			Detail: fmt.Sprintf("%s and %s share %.0f%% of their words (Jaccard similarity of their word sets, past any opening lines both share)", a.key, b.key, score*100),
			Suggestion: fmt.Sprintf("read both; if they teach the same thing, merge %s into %s by hand and archive it",
				b.key, a.key),
		})
	}
	return out
}
