package secrets

import (
	"strings"
	"testing"
)

// TestRedactEachRule: a token of every rule, in every context, is taken
// out whole; what surrounds it stays; nothing is found in what is left.
func TestRedactEachRule(t *testing.T) {
	eachRuleInEachContext(t, func(t *testing.T, _ Rule, tok, doc string, _ int) {
		got := Redact(doc)
		if strings.Contains(got, tok) || !strings.Contains(got, Redacted) || Scan(got) != nil {
			t.Errorf("Redact left a credential:\n%s", got)
		}
		// A private key in a YAML block is re-indented, so only the other
		// rules' tokens appear in doc as made.
		if strings.Contains(doc, tok) && strings.Replace(doc, tok, Redacted, 1) != got {
			t.Errorf("Redact changed more than the token:\n%s\nfrom\n%s", got, doc)
		}
	})
}

// TestRedactKeys: a key carrying credentials keeps its shape with each
// one replaced; a clean one, and Redacted itself, are unchanged.
func TestRedactKeys(t *testing.T) {
	r := newRand(t)
	gh, aws := generators["github-pat"](r), generators["aws-access-token"](r)
	for in, want := range map[string]string{
		gh + ".md":                            Redacted + ".md",
		"notes/" + gh + ".md":                 "notes/" + Redacted + ".md",
		gh + "/" + aws + ".md":                Redacted + "/" + Redacted + ".md",
		"deploy " + gh + " and " + gh + ".md": "deploy " + Redacted + " and " + Redacted + ".md",
		"notes/deploy.md":                     "notes/deploy.md",
		Redacted + ".md":                      Redacted + ".md",
		"":                                    "",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q; want %q", in, got, want)
		}
	}
}
