package client_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/teammem/teammem/client"
)

func TestTokenExpiry(t *testing.T) {
	jwt := func(claims string) string {
		enc := base64.RawURLEncoding.EncodeToString
		return enc([]byte(`{"alg":"EdDSA"}`)) + "." + enc([]byte(claims)) + ".c2ln"
	}
	for _, tc := range []struct {
		name, token string
		want        time.Time
		ok          bool
	}{
		{"exp", jwt(`{"sub":"ana","exp":1767225600}`), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"exp with a fraction", jwt(`{"exp":1767225600.5}`), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"spaces around", " " + jwt(`{"exp":1767225600}`) + "\n", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"no exp", jwt(`{"sub":"ana"}`), time.Time{}, false},
		{"exp not a number", jwt(`{"exp":"soon"}`), time.Time{}, false},
		{"exp absurd", jwt(`{"exp":1e300}`), time.Time{}, false},
		{"not JSON", jwt(`exp`), time.Time{}, false},
		{"opaque", "tm_0123456789abcdef", time.Time{}, false},
		{"two parts", "a.b", time.Time{}, false},
		{"bad base64", "a.!!!.c", time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := client.TokenExpiry(tc.token)
			if ok != tc.ok || !got.Equal(tc.want) {
				t.Errorf("TokenExpiry = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
