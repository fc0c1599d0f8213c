package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"regexp"
)

// verifierPattern is RFC 7636's code_verifier: 43 to 128 unreserved
// characters.
var verifierPattern = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// challengePattern is an S256 challenge: 32 bytes in unpadded base64url.
var challengePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// verifyPKCE reports whether verifier is the one challenge was made from
// (S256).
func verifyPKCE(verifier, challenge string) bool {
	if !verifierPattern.MatchString(verifier) {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// secret returns n random bytes in unpadded base64url: a code or a
// refresh token.
func secret(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// hash is what the store keeps of a code or a refresh token.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
