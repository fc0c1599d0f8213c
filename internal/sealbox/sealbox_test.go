package sealbox

import (
	"bytes"
	"errors"
	"testing"
)

// TestSealOpen: a value opens under its key and associated data only.
func TestSealOpen(t *testing.T) {
	a, err := New([]byte("secret"), "purpose a")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := New([]byte("secret"), "purpose b")
	sealed, err := a.Seal([]byte("token"), []byte("id-1"))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := a.Open(sealed, []byte("id-1")); err != nil || !bytes.Equal(plain, []byte("token")) {
		t.Errorf("Open = %q, %v", plain, err)
	}
	damaged := bytes.Clone(sealed)
	damaged[len(damaged)-1] ^= 1
	for name, open := range map[string]func() ([]byte, error){
		"other ad":      func() ([]byte, error) { return a.Open(sealed, []byte("id-2")) },
		"other purpose": func() ([]byte, error) { return other.Open(sealed, []byte("id-1")) },
		"damaged":       func() ([]byte, error) { return a.Open(damaged, []byte("id-1")) },
		"short":         func() ([]byte, error) { return a.Open(sealed[:3], []byte("id-1")) },
	} {
		if _, err := open(); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: %v; want ErrOpen", name, err)
		}
	}
}
