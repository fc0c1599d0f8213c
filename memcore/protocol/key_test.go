package protocol

import (
	"errors"
	"path"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol/protocoltest"

	"golang.org/x/text/unicode/norm"
)

func TestValidateKeyRefusesHostile(t *testing.T) {
	if len(protocoltest.HostileKeys) < 60 {
		t.Fatalf("only %d hostile keys", len(protocoltest.HostileKeys))
	}
	for _, tc := range protocoltest.HostileKeys {
		t.Run(tc.Name, func(t *testing.T) {
			err := ValidateKey(tc.Key)
			if !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("ValidateKey(%q) = %v, want ErrInvalidKey", tc.Key, err)
			}
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != tc.Key {
				t.Fatalf("ValidateKey(%q) = %#v, want *KeyError with the key", tc.Key, err)
			}
			if !strings.Contains(ke.Reason, tc.Reason) {
				t.Errorf("reason %q, want it to mention %q", ke.Reason, tc.Reason)
			}
		})
	}
}

func TestValidateKeyAcceptsOrdinary(t *testing.T) {
	for _, tc := range protocoltest.OrdinaryKeys {
		t.Run(tc.Name, func(t *testing.T) {
			if err := ValidateKey(tc.Key); err != nil {
				t.Fatalf("ValidateKey(%q) = %v, want nil", tc.Key, err)
			}
		})
	}
	if n := len(protocoltest.OrdinaryKeys[16].Key); n != MaxKeyBytes {
		t.Fatalf("the 512-byte case has %d bytes", n)
	}
}

func TestKeyErrorQuotesControlCharacters(t *testing.T) {
	msg := ValidateKey("a\x1b]0;pwned\x07\r\n.md").Error()
	if strings.ContainsAny(msg, "\x1b\x07\r\n") {
		t.Fatalf("error message carries raw control characters: %q", msg)
	}
	if !strings.Contains(msg, `\x1b`) {
		t.Fatalf("error message %q does not show the escaped key", msg)
	}
}

func TestValidKeyInvariants(t *testing.T) {
	for _, tc := range protocoltest.OrdinaryKeys {
		checkValidKeyInvariants(t, tc.Key)
	}
}

// checkValidKeyInvariants fails t when a key ValidateKey accepted could name
// something outside its folder, or could become another path once
// normalised: its NFKC form and its case-folded form (FoldKey) must keep its
// segments, add no separator and no "." or ".." segment.
func checkValidKeyInvariants(t *testing.T, key string) {
	t.Helper()
	switch {
	case path.IsAbs(key) || strings.ContainsAny(key, "\\:*?\"<>|"):
		t.Fatalf("valid key %q is absolute or holds a character Windows refuses", key)
	case path.Clean(key) != key:
		t.Fatalf("valid key %q cleans to %q", key, path.Clean(key))
	case len(key) > MaxKeyBytes:
		t.Fatalf("valid key %q is too long", key)
	case !norm.NFC.IsNormalString(key):
		t.Fatalf("valid key %q is not NFC", key)
	}
	var prev rune
	for _, r := range key {
		switch {
		case r == textSelector || r == emojiSelector:
			if !unicode.In(prev, unicode.Sc, unicode.Sk, unicode.So) {
				t.Fatalf("valid key %q holds %U after %U", key, r, prev)
			}
		case r == zeroWidthJoiner:
			if !unicode.In(prev, unicode.Sc, unicode.Sk, unicode.So) && prev != textSelector && prev != emojiSelector {
				t.Fatalf("valid key %q holds %U after %U", key, r, prev)
			}
		case r >= utf8.RuneSelf && !isKeyRune(r):
			t.Fatalf("valid key %q holds %U", key, r)
		}
		prev = r
	}
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		if seg == ".." || seg == "." || (i == len(segs)-1 && strings.HasPrefix(seg, ".")) || strings.EqualFold(seg, ".git") {
			t.Fatalf("valid key %q has segment %q", key, seg)
		}
	}
	for name, form := range map[string]string{"NFKC": norm.NFKC.String(key), "folded": FoldKey(key)} {
		formSegs := strings.Split(form, "/")
		if len(formSegs) != len(segs) || strings.ContainsAny(form, "\\:") {
			t.Fatalf("valid key %q has %s form %q with other separators", key, name, form)
		}
		for i, seg := range formSegs {
			if seg == "." || seg == ".." || strings.Count(seg, ".") != strings.Count(segs[i], ".") {
				t.Fatalf("valid key %q has %s form %q, whose segment %q adds a dot", key, name, form, seg)
			}
		}
	}
}

func FuzzValidateKey(f *testing.F) {
	for _, tc := range protocoltest.HostileKeys {
		f.Add(tc.Key)
	}
	for _, tc := range protocoltest.OrdinaryKeys {
		f.Add(tc.Key)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if ValidateKey(key) == nil {
			checkValidKeyInvariants(t, key)
		}
	})
}

func BenchmarkValidateKey(b *testing.B) {
	keys := []string{"MEMORY.md", "decisions/2026-05 db choice.md", "notes/a.b-c_d.md", "决策记录.md",
		"projects/api/runbooks/postgres failover.md"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := ValidateKey(keys[i%len(keys)]); err != nil {
			b.Fatal(err)
		}
	}
}

func TestIsDeviceStem(t *testing.T) {
	tests := []struct {
		seg  string
		want bool
	}{
		{"CON", true}, {"con.md", true}, {"Con .txt", true}, {"nul.tar.gz", true},
		{"COM0", true}, {"com9.md", true}, {"LPT1", true}, {"COM¹.md", true}, {"lpt³", true},
		{"CONIN$.md", true}, {"conout$", true},
		{"CONSOLE.md", false}, {"con-notes.md", false}, {"COM10", false}, {"COM⁴", false},
		{"LPTX", false}, {"icon.md", false}, {"xcon", false}, {"", false},
	}
	for _, tc := range tests {
		t.Run(tc.seg, func(t *testing.T) {
			if got := isDeviceStem(tc.seg); got != tc.want {
				t.Fatalf("isDeviceStem(%q) = %v, want %v", tc.seg, got, tc.want)
			}
		})
	}
}

// BenchmarkValidateKeyLongest measures a 510-byte key of three-byte CJK
// letters in 16 segments: the slowest valid shape (every rune decoded, NFC
// checked).
func BenchmarkValidateKeyLongest(b *testing.B) {
	key := strings.Repeat("决策记录决策记录决/", 15) + "决策记录决策记录.md"
	if err := ValidateKey(key); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ValidateKey(key)
	}
}

// TestValidateKeyAgreesWithSlowPath checks, for every BMP rune in a few
// contexts, that ValidateKey's cached rune facts and NFC shortcut give the
// same answer as the direct rules.
func TestValidateKeyAgreesWithSlowPath(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= 0xFFFF; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		for _, key := range []string{"x" + string(r) + "y.md", "x" + string(r) + "\u0301.md", "e" + string(r) + ".md"} {
			want := isKeyRune(r) && norm.NFC.IsNormalString(key)
			if got := ValidateKey(key) == nil; got != want {
				t.Fatalf("ValidateKey(%q) valid = %v, want %v", key, got, want)
			}
		}
	}
}

func TestHiddenFileAndFolder(t *testing.T) {
	tests := []struct {
		p            string
		file, folder bool
	}{
		{"MEMORY.md", false, false}, {".trash/old.md", false, false}, {"a/.b/c.md", false, false},
		{".trash", true, false}, {"a/.trash", true, false}, {".hidden.md", true, false}, {"a/.#x.md", true, false},
		{".teammem-tmp-1.md", true, true}, {".git", true, true}, {".git/config", true, true}, {".GIT/x.md", true, true},
		{"a/.git/x.md", true, true}, {".teammem/state.json", true, true}, {"../x.md", true, true},
		{"./x.md", true, true}, {".x./y.md", true, true}, {"git~1/x.md", false, false},
	}
	for _, tc := range tests {
		if got := HiddenFile(tc.p); got != tc.file {
			t.Errorf("HiddenFile(%q) = %v, want %v", tc.p, got, tc.file)
		}
		if got := HiddenFolder(tc.p); got != tc.folder {
			t.Errorf("HiddenFolder(%q) = %v, want %v", tc.p, got, tc.folder)
		}
	}
}
