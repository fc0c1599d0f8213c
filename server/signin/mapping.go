package signin

import (
	"fmt"
	"strings"

	"github.com/teammem/teammem/server"
)

// ClaimGrant gives Grant to the people whose claim Claim holds Value
// (the claim a string or a list of strings).
type ClaimGrant struct {
	Claim, Value string
	Grant        server.Grant
}

// ParseClaimGrant parses "CLAIM=VALUE=GLOB:PERM", for example
// "groups=platform=acme/*:write".
func ParseClaimGrant(s string) (ClaimGrant, error) {
	claim, rest, ok := strings.Cut(s, "=")
	i := strings.LastIndexByte(rest, '=')
	if !ok || claim == "" || i <= 0 {
		return ClaimGrant{}, fmt.Errorf("claim mapping %q: want CLAIM=VALUE=GLOB:PERM, such as groups=platform=acme/*:write", s)
	}
	g, err := server.ParseGrant(rest[i+1:])
	if err != nil {
		return ClaimGrant{}, fmt.Errorf("claim mapping %q: %w", s, err)
	}
	return ClaimGrant{Claim: claim, Value: rest[:i], Grant: g}, nil
}
