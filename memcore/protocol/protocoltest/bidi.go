package protocoltest

// BidiControls are Unicode's bidirectional formatting characters, by name:
// no key may hold one, nor any text a teammate sends for others to read
// (protocol.IsBidiControl). Every end that refuses them runs this table.
var BidiControls = []struct {
	Name string
	Rune rune
}{
	{"ALM", '\u061c'},
	{"LRM", '\u200e'},
	{"RLM", '\u200f'},
	{"LRE", '\u202a'},
	{"RLE", '\u202b'},
	{"PDF", '\u202c'},
	{"LRO", '\u202d'},
	{"RLO", '\u202e'},
	{"LRI", '\u2066'},
	{"RLI", '\u2067'},
	{"FSI", '\u2068'},
	{"PDI", '\u2069'},
}
