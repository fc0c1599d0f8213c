// Package secretstest makes credentials the scanner recognises, for the
// tests of every package that must refuse them: made per call, so that no
// real-looking credential sits in the source for other scanners to flag.
package secretstest

import "crypto/rand"

// GitHubToken is a GitHub personal access token's shape (rule github-pat):
// "ghp_" and 36 random letters and digits.
func GitHubToken() string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 36)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return "ghp_" + string(b)
}
