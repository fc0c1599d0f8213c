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

// TestRedactNestedToken: a fine-grained GitHub PAT whose random body holds
// a classic one ("...ghp_" + 36 characters) goes out whole; redacting only
// the inner token left 33 characters of the outer one in the text.
func TestRedactNestedToken(t *testing.T) {
	outer := "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"
	for _, doc := range []string{outer, `token: "` + outer + `"`, "a " + outer + " b"} {
		want := strings.Replace(doc, outer, Redacted, 1)
		if got := Redact(doc); got != want {
			t.Errorf("Redact(%q) = %q; want %q", doc, got, want)
		}
	}
}

// TestScanNestedToken: a PyPI token whose random body holds a classic
// GitHub PAT is one credential, the PyPI one.
func TestScanNestedToken(t *testing.T) {
	tok := "pypi-AgEIcHlwaS5vcmcxS09-uF1-M6eW_grj5_60Lghp_XagywsfNELlzVKwKyJYnSEIkxMEUUjX1G3nsmEYZI82b95kWH52ycDFI5VAYg4aguyDiCuGrFoMV-8kRxASzs_1vqCJkQrbJa06cFoFnm1yw85uFmJkhOk-OHRaXP7zBEGAmhWtWGhPYS8U0c5INrdaTPSUrB8CcZwM"
	got := Scan("token: " + tok + "\nand a real one: ghp_Xk29fQpL0ZrT7bVw3NcYh8dJm1sGa5uE4oRi")
	if len(got) != 2 || got[0].RuleID != "pypi-upload-token" || got[0].Line != 1 || got[1].RuleID != "github-pat" {
		t.Errorf("Scan = %+v; want the PyPI token on line 1 and the GitHub PAT apart", got)
	}
}
