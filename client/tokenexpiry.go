package client

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// TokenExpiry reads when a bearer token stops being accepted from its own
// claims, without checking its signature (the server does): the exp of a
// JWT. ok is false for a token that is not a JWT or names no expiry; ask
// the server (Whoami) then. It is for warning a person ahead of time, never
// for deciding what the token may do.
func TokenExpiry(token string) (exp time.Time, ok bool) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp *json.Number `json:"exp"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil || claims.Exp == nil {
		return time.Time{}, false
	}
	secs, err := claims.Exp.Float64()
	if err != nil || secs <= 0 || secs > 1e11 {
		return time.Time{}, false
	}
	return time.Unix(int64(secs), 0).UTC(), true
}
