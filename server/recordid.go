package server

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
)

// recordIDPattern is the shape of the ids the server makes for what it
// records (a token's jti, an OAuth session, a sign-in with the identity
// provider): 24 random lowercase hex digits.
var recordIDPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

// NewRecordID returns a new random id of recordIDPattern's shape.
func NewRecordID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	return hex.EncodeToString(b)
}
