package secrets

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cleanCorpus reads testdata/clean: ordinary Markdown that must not match.
func cleanCorpus(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "clean", "*.md"))
	if err != nil || len(paths) < 15 {
		t.Fatalf("want at least 15 clean files, got %d (%v)", len(paths), err)
	}
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

func TestScanCleanCorpus(t *testing.T) {
	selected := map[int]bool{}
	for name, doc := range cleanCorpus(t) {
		t.Run(name, func(t *testing.T) {
			if got := Scan(doc); got != nil {
				t.Errorf("Scan(%s) = %+v, want no match", name, got)
			}
		})
		for i, hits := range keywords.find(doc) {
			if len(hits) > 0 {
				selected[i] = true
			}
		}
	}
	// The corpus must get past the prefilter for many rules, or it proves
	// nothing about the patterns and their filters.
	if len(selected) < 12 {
		t.Errorf("clean corpus selects only %d rules past the keyword pass; want >= 12", len(selected))
	}
}

// TestScanNearMisses names the shapes that look like credentials but must
// not match, each for a stated reason.
func TestScanNearMisses(t *testing.T) {
	r := newRand(t)
	tests := []struct{ name, doc string }{
		{"aws documentation key (EXAMPLE allowlist)", "key id AKIAIOSFODNN7EXAMPLE here"},
		{"aws key inside a longer word", "XAKIA" + rs(r, base32, 16)},
		{"aws-prefixed words in capitals", "regions: ASIAPACIFICSOUTHEAST, AKIAMAKESNOSENSEHERE"},
		{"stripe key name, too short", "set sk_test_MyStripeKey in the vault"},
		{"stripe key name in words", "set sk_live_ThisIsOurProductionKeyName in the vault"},
		{"repeated placeholder", "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"},
		{"alphabet run", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
		{"one character short", "ghp_" + rs(r, alnum, 35) + " end"},
		{"slack documentation webhook", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"},
		{"hugging face lowercase identifier", "hf_" + rs(r, lowers, 34)},
		{"npm lowercase identifier", "npm_" + rs(r, lowers, 36)},
		{"twilio glued to a word", "DISK" + rs(r, hexLow, 32)},
		{"stripe publishable key", "pk_live_" + rs(r, alnum, 24)},
		{"truncated anthropic key", "sk-ant-api03-" + rs(r, wordCs, 40) + "..."},
		{"databricks token glued to more hex", "dapi" + rs(r, hexLow, 40)},
		{"private key without END", "-----BEGIN RSA PRIVATE KEY-----\n" + rs(r, alnum, 64) + "\n" + rs(r, alnum, 64) + "\n"},
		{"private key with short body", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg...\n-----END PRIVATE KEY-----"},
		{"private key with placeholder body", "-----BEGIN PRIVATE KEY-----\n" + strings.Repeat("x", 80) + "\n-----END PRIVATE KEY-----"},
		{"certificate block", "-----BEGIN CERTIFICATE-----\n" + rs(r, alnum, 64) + "\n" + rs(r, alnum, 64) + "\n-----END CERTIFICATE-----"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Scan(tt.doc); got != nil {
				t.Errorf("Scan(%q) = %+v, want no match", tt.doc, got)
			}
		})
	}
}

// TestScanFiltersAreLive checks that the near misses above fail for their
// stated reason: the same shapes with real random bodies do match.
func TestScanFiltersAreLive(t *testing.T) {
	r := newRand(t)
	tests := []struct{ name, doc, rule string }{
		// A random base32 body holds no digit one time in 28, and then may
		// read as a word (the wordLike allowlist); a digit keeps it random.
		{"aws key not ending in EXAMPLE", "key id AKIA" + rs(r, base32, 15) + rs(r, "234567", 1) + " here", "aws-access-token"},
		{"aws key without digits or vowels", "key id ASIA" + rs(r, "BCDFGHJKLMNPQRSTVWXZ", 16), "aws-access-token"},
		{"stripe key of 24 letters, few vowels", "sk_live_" + rs(r, "bcdfghjklmnpqrstvwxzBCDFGHJKLMNPQRSTVWXZ", 24), "stripe-access-token"},
		{"hugging face mixed case", "hf_" + rs(r, lowers, 33) + "Q", "huggingface-access-token"},
		{"twilio at a word boundary", "(SK" + rs(r, hexLow, 32) + ")", "twilio-api-key"},
		{"databricks token with suffix", "dapi" + rs(r, hexLow, 32) + "-2", "databricks-api-token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Scan(tt.doc)
			if len(got) != 1 || got[0].RuleID != tt.rule {
				t.Errorf("Scan(%q) = %+v, want one %s", tt.doc, got, tt.rule)
			}
		})
	}
}

// TestScanCorpusWithSecret plants a random token in every clean file at a
// random line and wants exactly that rule there.
func TestScanCorpusWithSecret(t *testing.T) {
	r := newRand(t)
	rules := Rules()
	for name, doc := range cleanCorpus(t) {
		rule := rules[r.IntN(len(rules))]
		t.Run(name+"/"+rule.ID, func(t *testing.T) {
			ls := strings.Split(doc, "\n")
			at := plantLine(r, ls)
			ls[at] = "Note: " + generators[rule.ID](r) + " (rotate me)"
			got := Scan(strings.Join(ls, "\n"))
			want := Match{RuleID: rule.ID, Label: rule.Label, Line: at + 1}
			if len(got) != 1 || got[0] != want {
				t.Errorf("got %+v, want [%+v]", got, want)
			}
		})
	}
}

// plantLine picks a line outside PEM blocks: a token planted between a
// BEGIN and an END marker (the corpus quotes a redacted key) would make the
// block a key, and replacing a marker would change the structure.
func plantLine(r *rand.Rand, ls []string) int {
	inPEM := make([]bool, len(ls)) // a marker line, or a line between BEGIN and END markers
	open := false
	for i, l := range ls {
		begin, end := strings.Contains(l, "-----BEGIN "), strings.Contains(l, "-----END ")
		inPEM[i] = open || strings.Contains(l, "-----")
		switch {
		case begin && !end:
			open = true
		case end:
			open = false
		}
	}
	for {
		if i := r.IntN(len(ls)); !inPEM[i] {
			return i
		}
	}
}

// TestScanPEMAfterQuotedMarker: a BEGIN marker quoted in prose must neither
// match itself nor hide the real block below it.
func TestScanPEMAfterQuotedMarker(t *testing.T) {
	r := newRand(t)
	doc := "Keys start with \"-----BEGIN RSA PRIVATE KEY-----\" and end with \"-----END RSA PRIVATE KEY-----\".\n" +
		"Here is the one we leaked:\n\n" + generators["private-key"](r) + "\n"
	want := []Match{{RuleID: "private-key", Label: "Private key", Line: 4}}
	if got := Scan(doc); len(got) != 1 || got[0] != want[0] {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
