package secrets

// keywordIndex finds, in one pass over the text, every case-insensitive
// occurrence of every rule keyword. A bitset over the first two lowercase
// bytes of each keyword rejects almost every position with one load; only
// positions whose byte pair starts some keyword are compared in full.
type keywordIndex struct {
	pairs   [1 << 16 / 64]uint64
	bucket  [1 << 16]uint8 // pair -> index into buckets (0: none)
	buckets [][]keyword    // buckets[0] is unused
	nrRules int
}

// keyword is one lowercase keyword and the rules (table indexes) it selects.
type keyword struct {
	text  string
	rules []int
}

// lower maps ASCII upper case to lower case and every other byte to itself.
var lower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func newKeywordIndex(rules []Rule) *keywordIndex {
	x := &keywordIndex{buckets: make([][]keyword, 1), nrRules: len(rules)}
	for i, r := range rules {
		for _, kw := range r.Keywords {
			x.add(kw, i)
		}
	}
	return x
}

func (x *keywordIndex) add(kw string, rule int) {
	if len(kw) < 2 || kw != lowerASCII(kw) {
		panic("secrets: keyword must be lowercase and at least 2 bytes: " + kw)
	}
	p := pair(kw[0], kw[1])
	x.pairs[p>>6] |= 1 << (p & 63)
	if x.bucket[p] == 0 {
		x.buckets = append(x.buckets, nil)
		x.bucket[p] = uint8(len(x.buckets) - 1) // < 256 pairs: few keywords
	}
	bucket := &x.buckets[x.bucket[p]]
	for j := range *bucket {
		if (*bucket)[j].text == kw {
			(*bucket)[j].rules = append((*bucket)[j].rules, rule)
			return
		}
	}
	*bucket = append(*bucket, keyword{text: kw, rules: []int{rule}})
}

// find returns, per rule (table index), the ascending byte offsets at which
// one of its keywords occurs; nil when no keyword occurs at all.
func (x *keywordIndex) find(s string) [][]int {
	var hits [][]int
	for i := 0; i+1 < len(s); i++ {
		p := pair(lower[s[i]], lower[s[i+1]])
		if x.pairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		for _, kw := range x.buckets[x.bucket[p]] {
			if !hasPrefixFold(s[i:], kw.text) {
				continue
			}
			if hits == nil {
				hits = make([][]int, x.nrRules)
			}
			for _, r := range kw.rules {
				hits[r] = append(hits[r], i)
			}
		}
	}
	return hits
}

func pair(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

// hasPrefixFold reports whether s starts with the lowercase ASCII kw,
// ignoring ASCII case in s.
func hasPrefixFold(s, kw string) bool {
	if len(s) < len(kw) {
		return false
	}
	for j := 0; j < len(kw); j++ {
		if lower[s[j]] != kw[j] {
			return false
		}
	}
	return true
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower[c]
	}
	return string(b)
}
