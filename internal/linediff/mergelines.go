package linediff

// MergeLines merges two edited versions of an index (base → local, base →
// server) by line union, which always succeeds: the base's order is kept;
// lines added on either side are kept, the local ones first, a line added
// identically on both sides once; a line deleted on one side and left on
// the other is deleted; a line changed on both sides keeps both versions.
// Every line of the result ends with a newline. MergeLines is pure.
func MergeLines(base, local, server string) string {
	switch {
	case local == server, server == base:
		return local
	case local == base:
		return server
	}
	bl := Split(base)
	lh, sh := Hunks(bl, Split(local)), Hunks(bl, Split(server))
	// Lines either side added anywhere so far: a line both sides added, at
	// different places, is kept once (where the local side put it).
	have := map[string]bool{}
	for _, h := range lh {
		for _, l := range h.Lines {
			have[NormalLine(l)] = true
		}
	}
	var out []string
	pos := 0
	for len(lh) > 0 || len(sh) > 0 {
		var lc, sc []Hunk
		lo, hi := clusterStart(lh, sh)
		for grew := true; grew; {
			grew = false
			for len(lh) > 0 && (lh[0].Start < hi || lh[0].Start == lo) {
				lc, lh, hi, grew = append(lc, lh[0]), lh[1:], max(hi, lh[0].End), true
			}
			for len(sh) > 0 && (sh[0].Start < hi || sh[0].Start == lo) {
				sc, sh, hi, grew = append(sc, sh[0]), sh[1:], max(hi, sh[0].End), true
			}
		}
		out = append(out, bl[pos:lo]...)
		out = append(out, unionRange(bl[lo:hi], applyAt(bl, lo, hi, lc), applyAt(bl, lo, hi, sc), have)...)
		pos = hi
	}
	out = append(out, bl[pos:]...)
	return JoinLines(out)
}

// clusterStart returns the base range of whichever side's next hunk
// starts first.
func clusterStart(lh, sh []Hunk) (lo, hi int) {
	h := func() Hunk {
		switch {
		case len(lh) == 0:
			return sh[0]
		case len(sh) == 0 || lh[0].Start <= sh[0].Start:
			return lh[0]
		}
		return sh[0]
	}()
	return h.Start, h.End
}

// applyAt returns one side's version of base lines [lo, hi): the lines
// with the side's hunks of that range applied.
func applyAt(base []string, lo, hi int, hunks []Hunk) []string {
	var out []string
	pos := lo
	for _, h := range hunks {
		out = append(out, base[pos:h.Start]...)
		out = append(out, h.Lines...)
		pos = h.End
	}
	return append(out, base[pos:hi]...)
}

// unionRange merges the two sides' versions of one base range: the local
// lines, less the base lines the server dropped, then the server's added
// lines that are not in have (the lines added so far, local ones
// everywhere); it adds what it keeps to have.
func unionRange(base, local, server []string, have map[string]bool) []string {
	dropped := counts(base)
	for _, l := range server {
		if dropped[l] > 0 {
			dropped[l]--
		}
	}
	inBase := counts(base)
	var out []string
	for _, l := range local {
		if inBase[l] > 0 && dropped[l] > 0 {
			dropped[l]--
			inBase[l]--
			continue
		}
		if inBase[l] > 0 {
			inBase[l]--
		}
		out = append(out, l)
		have[NormalLine(l)] = true
	}
	baseSet := counts(base)
	for _, l := range server {
		if baseSet[l] > 0 {
			baseSet[l]--
			continue
		}
		if !have[NormalLine(l)] {
			out = append(out, l)
			have[NormalLine(l)] = true
		}
	}
	return out
}

// counts returns how often each line occurs.
func counts(lines []string) map[string]int {
	m := make(map[string]int, len(lines))
	for _, l := range lines {
		m[l]++
	}
	return m
}

// NormalLine is a line without its newline, for comparing lines.
func NormalLine(l string) string {
	if n := len(l); n > 0 && l[n-1] == '\n' {
		return l[:n-1]
	}
	return l
}

// JoinLines joins lines, giving each a newline.
func JoinLines(lines []string) string {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	b := make([]byte, 0, n)
	for _, l := range lines {
		b = append(b, NormalLine(l)...)
		b = append(b, '\n')
	}
	return string(b)
}
