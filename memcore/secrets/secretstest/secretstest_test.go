package secretstest_test

import (
	"testing"

	"github.com/teammem/teammem/memcore/secrets"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
)

// TestGitHubTokenIsFound: the scanner finds every token made, under its
// rule, and two tokens differ.
func TestGitHubTokenIsFound(t *testing.T) {
	a, b := secretstest.GitHubToken(), secretstest.GitHubToken()
	if a == b {
		t.Fatal("two tokens are the same")
	}
	for range 100 {
		tok := secretstest.GitHubToken()
		f := secrets.Scan("token = " + tok + "\n")
		if len(f) == 0 || f[0].RuleID != "github-pat" {
			t.Fatalf("%s: findings %+v; want github-pat", tok, f)
		}
	}
}
