package protocol

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// TestBidiControls: the table names every bidirectional control Unicode
// has, IsBidiControl reports each, and ValidateKey refuses a key holding
// any of them, naming it.
func TestBidiControls(t *testing.T) {
	listed := map[rune]bool{}
	for _, c := range protocoltest.BidiControls {
		listed[c.Rune] = true
		t.Run(c.Name, func(t *testing.T) {
			if !IsBidiControl(c.Rune) {
				t.Errorf("IsBidiControl(%U) = false", c.Rune)
			}
			for _, key := range []string{"a" + string(c.Rune) + "b.md", string(c.Rune) + "x.md", "notes/x" + string(c.Rune) + ".md"} {
				err := ValidateKey(key)
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%U", c.Rune)) {
					t.Errorf("ValidateKey(%q) = %v; want a refusal naming %U", key, err, c.Rune)
				}
			}
		})
	}
	for _, rt := range unicode.Bidi_Control.R16 {
		for r := rune(rt.Lo); r <= rune(rt.Hi); r += rune(rt.Stride) {
			if !listed[r] {
				t.Errorf("%U is a bidirectional control missing from protocoltest.BidiControls", r)
			}
		}
	}
	for _, r := range []rune{'a', 'é', 'ש', '\u200b', '\u200d', '\u2028', '-'} {
		if IsBidiControl(r) {
			t.Errorf("IsBidiControl(%U) = true", r)
		}
	}
}
