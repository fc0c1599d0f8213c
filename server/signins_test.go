package server

import (
	"slices"
	"testing"
)

// TestNarrowGrants: what a client consented with may still do when the
// person's grants change at the provider.
func TestNarrowGrants(t *testing.T) {
	tests := []struct {
		name               string
		consented, current []string
		want               []string
	}{
		{"unchanged", []string{"acme/*:write"}, []string{"acme/*:write"}, []string{"acme/*:write"}},
		{"group left", []string{"acme/*:write", "acme/handbook:read"}, []string{"acme/handbook:read"}, []string{"acme/handbook:read"}},
		{"every group left", []string{"acme/*:write"}, nil, nil},
		{"lowered", []string{"acme/*:write"}, []string{"acme/*:read"}, []string{"acme/*:read"}},
		{"raised at the provider: never past the consent", []string{"acme/*:read"}, []string{"acme/*:admin"}, []string{"acme/*:read"}},
		{"a wider current grant keeps the consented one", []string{"acme/api:write"}, []string{"acme/**:write"}, []string{"acme/api:write"}},
		{"a narrower current grant is what is left", []string{"acme/**:write"}, []string{"acme/api:read"}, []string{"acme/api:read"}},
		{"a grant the consent did not give is not added", []string{"acme/api:write"}, []string{"other/*:admin", "acme/api:write"}, []string{"acme/api:write"}},
		{"partial overlap gives nothing", []string{"acme/*:write"}, []string{"*/api:write"}, nil},
		{"* does not cover **", []string{"acme/**:read"}, []string{"acme/*:read"}, []string{"acme/*:read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NarrowGrants(tt.consented, tt.current); !slices.Equal(got, tt.want) {
				t.Errorf("NarrowGrants(%q, %q) = %q; want %q", tt.consented, tt.current, got, tt.want)
			}
		})
	}
}
