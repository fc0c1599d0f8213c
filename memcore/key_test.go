package memcore

import (
	"errors"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// hostileKeys maps a description to a key ValidateKey must refuse, with a
// fragment of the reason it must give.
var hostileKeys = []struct {
	name, key, reason string
}{
	{"parent", "../x.md", "starts with '.'"},
	{"parent inside", "a/../../b.md", "starts with '.'"},
	{"parent last", "a/..", "starts with '.'"},
	{"dot segment", "a/./b.md", "starts with '.'"},
	{"percent-encoded dots", "%2e%2e/x.md", "'%'"},
	{"percent-encoded slash", "..%2fx.md", "'%'"},
	{"encoded slash mid", "a%2f..%2fx.md", "'%'"},
	{"backslash parent", "..\\x.md", "'\\\\'"},
	{"backslash", "a\\b.md", "'\\\\'"},
	{"absolute", "/etc/x.md", "empty segment"},
	{"drive absolute", "C:\\x.md", "':'"},
	{"drive relative", "C:x.md", "':'"},
	{"UNC", "\\\\server\\share\\x.md", "'\\\\'"},
	{"UNC slashes", "//server/share/x.md", "empty segment"},
	{"fullwidth dots and solidus", "．．／x.md", "U+FF0E"},
	{"division slash", "a∕b.md", "U+2215"},
	{"fraction slash", "a⁄b.md", "U+2044"},
	{"fullwidth backslash", "a＼b.md", "U+FF3C"},
	{"fullwidth dot", "x．md", "U+FF0E"},
	{"one-dot leader", "․․/x.md", "U+2024"},
	{"NUL", "x\x00.md", "'\\x00'"},
	{"NUL truncation", "x.md\x00.sh", "'\\x00'"},
	{"CR", "x\r.md", "'\\r'"},
	{"LF", "x\n.md", "'\\n'"},
	{"ESC", "\x1b[31mx.md", "'\\x1b'"},
	{"DEL", "x\x7f.md", "'\\x7f'"},
	{"zero-width space", "x\u200b.md", "U+200B"},
	{"zero-width joiner", "x\u200d.md", "U+200D"},
	{"BOM", "\ufeffx.md", "U+FEFF"},
	{"RLO", "x\u202edm.sh", "U+202E"},
	{"LRO", "\u202dx.md", "U+202D"},
	{"no-break space", "a\u00a0b.md", "U+00A0"},
	{"CON", "CON.md", "device"},
	{"con space", "con .md", "device"},
	{"con mid path", "a/con/b.md", "device"},
	{"aux double extension", "aux.tar.md", "device"},
	{"COM superscript", "COM¹.md", "U+00B9"},
	{"COM9", "com9.md", "device"},
	{"LPT9", "LPT9.txt", "device"},
	{"LPT0", "lpt0.md", "device"},
	{"nul", "nul.txt", "device"},
	{"PRN", "Prn.md", "device"},
	{"CONIN$", "CONIN$.md", "'$'"},
	{"trailing dot", "x.md.", "ends with '.'"},
	{"trailing space", "x.md ", "ends with ' '"},
	{"folder trailing dot", "a./x.md", "ends with '.'"},
	{"folder trailing space", "a /x.md", "ends with ' '"},
	{"leading dash", "-rf.md", "starts with '-'"},
	{"leading space", " x.md", "starts with ' '"},
	{"git config", ".git/config", "starts with '.'"},
	{"git hooks", ".git/hooks/pre-commit.md", "starts with '.'"},
	{"hidden", ".hidden.md", "starts with '.'"},
	{"agent temp", ".teammem-tmp-ABC.md", "starts with '.'"},
	{"double slash", "a//b.md", "empty segment"},
	{"trailing slash", "a/", "empty segment"},
	{"lone slash", "/", "empty segment"},
	{"empty", "", "empty"},
	{"513 bytes", strings.Repeat("a", 509) + ".md" + "x", "longer than 512"},
	{"513 bytes valid shape", strings.Repeat("a/", 15) + strings.Repeat("b", 480) + ".md", "longer than 512"},
	{"256-byte segment", strings.Repeat("a", 253) + ".md", "segment longer than 255"},
	{"17 segments", strings.Repeat("a/", 16) + "x.md", "more than 16"},
	{"decomposed e acute", "cafe\u0301.md", "NFC"},
	{"decomposed in CJK name", "决策e\u0301.md", "NFC"},
	{"Angstrom sign", "\u212b.md", "NFC"},
	{"Hangul jamo sequence", "\u1100\u1161.md", "NFC"},
	{"invalid UTF-8", "x\xff.md", "UTF-8"},
	{"overlong slash", "a\xc0\xafb.md", "UTF-8"},
	{"surrogate", "a\xed\xa0\x80.md", "UTF-8"},
	{"shell script", "x.sh", "does not end"},
	{"no extension", "x", "does not end"},
	{"double extension", "x.md.exe", "does not end"},
	{"folder only", "notes", "does not end"},
	{"tilde", "~x.md", "'~'"},
	{"home", "~/x.md", "'~'"},
	{"dollar", "$x.md", "'$'"},
	{"env var", "${HOME}.md", "'$'"},
	{"backquote", "`id`.md", "'`'"},
	{"colon", "a:b.md", "':'"},
	{"ADS", "x.md:stream", "':'"},
	{"star", "*.md", "'*'"},
	{"question", "?.md", "'?'"},
	{"double quote", "\"x\".md", "'\"'"},
	{"less greater", "<x>.md", "'<'"},
	{"pipe", "|x.md", "'|'"},
	{"tab", "a\tb.md", "'\\t'"},
	{"emoji", "🔥.md", "U+1F525"},
	{"Hangul filler", "a\u3164.md", "U+3164"},
	{"grapheme joiner", "a\u034fb.md", "U+034F"},
	{"variation selector", "a\ufe0fb.md", "U+FE0F"},
	{"symbol", "a©b.md", "U+00A9"},
	{"math symbol", "a∑.md", "U+2211"},
	{"CJK punctuation", "决策。md", "U+3002"},
}

// goodKeys are ordinary names that ValidateKey must accept.
var goodKeys = []struct{ name, key string }{
	{"index", "MEMORY.md"},
	{"spaces and digits", "decisions/2026-05 db choice.md"},
	{"ampersand", "Q&A.md"},
	{"Chinese", "决策记录.md"},
	{"punctuation", "notes/a.b-c_d.md"},
	{"upper TXT", "README.TXT"},
	{"mixed case extension", "x.Md"},
	{"Cyrillic", "заметки/решение.md"},
	{"Arabic", "ملاحظات.md"},
	{"Devanagari with marks", "निर्णय/टिप्पणी.md"},
	{"composed e acute", "caf\u00e9.md"},
	{"device-like stem", "con-notes.md"},
	{"device prefix", "console.md"},
	{"COM10", "com10.md"},
	{"allowed ASCII", "a!#&'()+,-.;=@[]^_{}b.txt"},
	{"16 deep", strings.Repeat("a/", 15) + "x.md"},
	{"exactly 512 bytes", strings.Repeat("a", 200) + "/" + strings.Repeat("b", 200) + "/" + strings.Repeat("c", 107) + ".md"},
	{"255-byte segment", strings.Repeat("a", 252) + ".md"},
	{"fullwidth digit", "ノート１.md"},
	{"inner dots", "v1.2.3 notes.md"},
}

func TestValidateKeyRefusesHostile(t *testing.T) {
	if len(hostileKeys) < 60 {
		t.Fatalf("only %d hostile keys", len(hostileKeys))
	}
	for _, tc := range hostileKeys {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateKey(tc.key)
			if !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("ValidateKey(%q) = %v, want ErrInvalidKey", tc.key, err)
			}
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != tc.key {
				t.Fatalf("ValidateKey(%q) = %#v, want *KeyError with the key", tc.key, err)
			}
			if !strings.Contains(ke.Reason, tc.reason) {
				t.Errorf("reason %q, want it to mention %q", ke.Reason, tc.reason)
			}
		})
	}
}

func TestValidateKeyAcceptsOrdinary(t *testing.T) {
	for _, tc := range goodKeys {
		t.Run(tc.name, func(t *testing.T) {
			if err := ValidateKey(tc.key); err != nil {
				t.Fatalf("ValidateKey(%q) = %v, want nil", tc.key, err)
			}
		})
	}
	if n := len(goodKeys[16].key); n != MaxKeyBytes {
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
	for _, tc := range goodKeys {
		checkValidKeyInvariants(t, tc.key)
	}
}

// checkValidKeyInvariants fails t when a key ValidateKey accepted could name
// something outside its folder.
func checkValidKeyInvariants(t *testing.T, key string) {
	t.Helper()
	switch {
	case path.IsAbs(key) || strings.ContainsAny(key, "\\:"):
		t.Fatalf("valid key %q is absolute or holds \\ or :", key)
	case path.Clean(key) != key:
		t.Fatalf("valid key %q cleans to %q", key, path.Clean(key))
	case len(key) > MaxKeyBytes:
		t.Fatalf("valid key %q is too long", key)
	case !norm.NFC.IsNormalString(key):
		t.Fatalf("valid key %q is not NFC", key)
	}
	for _, r := range key {
		if r >= utf8.RuneSelf && !isKeyRune(r) {
			t.Fatalf("valid key %q holds %U", key, r)
		}
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == ".." || seg == "." || strings.HasPrefix(seg, ".") {
			t.Fatalf("valid key %q has segment %q", key, seg)
		}
	}
}

func FuzzValidateKey(f *testing.F) {
	for _, tc := range hostileKeys {
		f.Add(tc.key)
	}
	for _, tc := range goodKeys {
		f.Add(tc.key)
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
