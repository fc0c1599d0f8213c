package protocol

import "strings"

// Link is one inline Markdown link of a line: [Text](Dest "title").
type Link struct {
	// Text is what stands between the brackets, as written.
	Text string
	// Dest is the destination as written: without the angle brackets of
	// <…>, its backslash escapes still in (LinkTarget reads it).
	Dest string
	// Start and End delimit the link in its line: line[Start:End] runs
	// from its "[" to its ")".
	Start, End int
}

// maxDestParens bounds the nesting of parentheses in a destination, as
// CommonMark allows; it also bounds the work of a line of many "](".
const maxDestParens = 32

// Links returns the inline links of one line of Markdown, left to right,
// read as CommonMark reads them. The text may hold brackets (a "]" closes
// the nearest "[" still open), code spans and escaped brackets. The
// destination is either in angle brackets (no unescaped "<" or ">") or a
// run without spaces or control characters whose parentheses balance; a
// title in "…", '…' or (…) may follow it after a space. A code span (a run
// of backticks up to the next run of the same length) is never part of a
// link's syntax, so a link inside one is not a link; nor is an escaped
// "[". Links do not nest: a link whose text holds a link is not one, the
// inner one is. An image, ![alt](dest), is read as a link: it names a
// file all the same. Reference links ([text][ref]) and autolinks (<…>)
// are not inline links and are not returned.
//
// Links reads a line in time linear in its length.
func Links(line string) []Link {
	s := linkScanner{line: line}
	return s.scan()
}

// linkScanner is the state of one Links call: the "[" still open, the
// links found, and, once a code span search has read to the end of the
// line, the offset of the last run of backticks of each length.
type linkScanner struct {
	line    string
	openers []int
	links   []Link
	lastRun map[int]int // run length → offset of the last run of that length; nil until known
}

func (s *linkScanner) scan() []Link {
	line := s.line
	for i := 0; i < len(line); {
		switch line[i] {
		case '\\':
			i += escapeLen(line, i)
		case '`':
			i = s.codeSpanEnd(i)
		case '[':
			s.openers = append(s.openers, i)
			i++
		case ']':
			i = s.closeBracket(i)
		default:
			i++
		}
	}
	return s.links
}

// escapeLen is the length of what starts with the backslash at line[i]:
// 2 for an escaped ASCII punctuation character, else 1.
func escapeLen(line string, i int) int {
	if i+1 < len(line) && isASCIIPunct(line[i+1]) {
		return 2
	}
	return 1
}

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// closeBracket handles the "]" at line[i]: with the nearest open "[" it
// makes a link when an inline destination follows. It returns where to
// read on.
func (s *linkScanner) closeBracket(i int) int {
	if len(s.openers) == 0 {
		return i + 1
	}
	open := s.openers[len(s.openers)-1]
	s.openers = s.openers[:len(s.openers)-1]
	dest, end, ok := inlineTail(s.line, i+1)
	if !ok {
		return i + 1
	}
	s.links = append(s.links, Link{Text: s.line[open+1 : i], Dest: dest, Start: open, End: end})
	s.openers = s.openers[:0] // a link may not be inside another: every "[" before it is text now
	return end
}

// codeSpanEnd returns the offset after the code span that starts with the
// run of backticks at line[i], or after that run when no run of the same
// length closes it (the backticks are then text). The first search that
// finds no closing run has read every run after it, so later ones without
// one are answered without reading the line again.
func (s *linkScanner) codeSpanEnd(i int) int {
	line := s.line
	n := backtickRun(line, i)
	if s.lastRun != nil && s.lastRun[n] <= i {
		return i + n
	}
	record := s.lastRun == nil
	var last map[int]int
	for j := i + n; j < len(line); {
		if line[j] != '`' {
			j++
			continue
		}
		m := backtickRun(line, j)
		if m == n {
			return j + m
		}
		if record {
			if last == nil {
				last = map[int]int{}
			}
			last[m] = j
		}
		j += m
	}
	if record {
		s.lastRun = last
		if s.lastRun == nil {
			s.lastRun = map[int]int{}
		}
	}
	return i + n
}

// backtickRun returns the length of the run of backticks at line[i].
func backtickRun(line string, i int) int {
	n := 0
	for i+n < len(line) && line[i+n] == '`' {
		n++
	}
	return n
}

// inlineTail reads what must follow a link's "]" at line[j]: "(", an
// optional destination, an optional title after a space, ")". It returns
// the destination as written and the offset after the ")".
func inlineTail(line string, j int) (dest string, end int, ok bool) {
	if j >= len(line) || line[j] != '(' {
		return "", 0, false
	}
	k := skipSpaces(line, j+1)
	dest, after, ok := readDest(line, k)
	if !ok {
		return "", 0, false
	}
	k = skipSpaces(line, after)
	if k < len(line) && k > after && strings.IndexByte(`"'(`, line[k]) >= 0 {
		if k, ok = readTitle(line, k); !ok {
			return "", 0, false
		}
		k = skipSpaces(line, k)
	}
	if k >= len(line) || line[k] != ')' {
		return "", 0, false
	}
	return dest, k + 1, true
}

// readDest reads a link destination at line[k]: <…>, or a run without
// spaces or control characters whose parentheses balance (perhaps empty).
// It returns the destination without angle brackets and the offset after
// it.
func readDest(line string, k int) (string, int, bool) {
	if k < len(line) && line[k] == '<' {
		for m := k + 1; m < len(line); m++ {
			switch line[m] {
			case '\\':
				m += escapeLen(line, m) - 1
			case '<', '\n':
				return "", 0, false
			case '>':
				return line[k+1 : m], m + 1, true
			}
		}
		return "", 0, false
	}
	depth, m := 0, k
	for ; m < len(line); m++ {
		c := line[m]
		if c == '\\' {
			m += escapeLen(line, m) - 1
			continue
		}
		if c <= ' ' || c == 0x7f {
			break
		}
		if c == '(' {
			if depth++; depth > maxDestParens {
				return "", 0, false
			}
		}
		if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	m = min(m, len(line))
	return line[k:m], m, depth == 0
}

// readTitle reads a link title at line[k] in quotes or parentheses and
// returns the offset after it. A title in parentheses holds no unescaped
// "(".
func readTitle(line string, k int) (int, bool) {
	closing := line[k]
	if closing == '(' {
		closing = ')'
	}
	for m := k + 1; m < len(line); m++ {
		switch c := line[m]; {
		case c == '\\':
			m += escapeLen(line, m) - 1
		case c == closing:
			return m + 1, true
		case c == '(' && closing == ')':
			return 0, false
		}
	}
	return 0, false
}

// skipSpaces returns the offset of the first character at or after j that
// is neither a space nor a tab.
func skipSpaces(line string, j int) int {
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	return j
}
