package teamblock

import "strings"

// link is one inline link `[text](target "title")` found in a line.
type link struct {
	text, target string
	end          int // the offset just after the closing parenthesis
}

// parseLink reads an inline link starting at the "[" at line[i]: the text
// up to the matching "]" (nested brackets counted, backslash escapes
// skipped), then "(", an optional destination (in angle brackets, or
// without spaces and with balanced parentheses), an optional title and
// ")". ok is false when line[i:] does not start a link of that shape.
func parseLink(line string, i int) (link, bool) {
	close := matchBracket(line, i)
	if close < 0 || close+1 >= len(line) || line[close+1] != '(' {
		return link{}, false
	}
	l := link{text: line[i+1 : close]}
	j := skipSpaces(line, close+2)
	target, j, ok := readDestination(line, j)
	if !ok {
		return link{}, false
	}
	l.target = target
	k := skipSpaces(line, j)
	if k < len(line) && k > j && strings.IndexByte(`"'(`, line[k]) >= 0 {
		if k, ok = readTitle(line, k); !ok {
			return link{}, false
		}
		k = skipSpaces(line, k)
	}
	if k >= len(line) || line[k] != ')' {
		return link{}, false
	}
	l.end = k + 1
	return l, true
}

// matchBracket returns the offset of the "]" that closes the "[" at
// line[i], or -1.
func matchBracket(line string, i int) int {
	depth := 0
	for k := i; k < len(line); k++ {
		switch line[k] {
		case '\\':
			k++
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return -1
}

// readDestination reads a link destination at line[j].
func readDestination(line string, j int) (string, int, bool) {
	if j < len(line) && line[j] == '<' {
		for k := j + 1; k < len(line); k++ {
			switch line[k] {
			case '\\':
				k++
			case '<':
				return "", 0, false
			case '>':
				return line[j : k+1], k + 1, true
			}
		}
		return "", 0, false
	}
	depth, k := 0, j
	for ; k < len(line); k++ {
		c := line[k]
		if c == '\\' {
			k++
			continue
		}
		if c == ' ' || c == '\t' {
			break
		}
		if c == '(' {
			depth++
		}
		if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	if k > len(line) {
		k = len(line)
	}
	return line[j:k], k, depth == 0
}

// readTitle reads a link title in quotes or parentheses at line[k] and
// returns the offset after it.
func readTitle(line string, k int) (int, bool) {
	closing := line[k]
	if closing == '(' {
		closing = ')'
	}
	for m := k + 1; m < len(line); m++ {
		switch line[m] {
		case '\\':
			m++
		case closing:
			return m + 1, true
		}
	}
	return 0, false
}

func skipSpaces(line string, j int) int {
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	return j
}
