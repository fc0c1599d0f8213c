// Package sealbox seals small secrets under a key derived from the
// server's secret for one purpose (HKDF-SHA256, then AES-256-GCM with a
// random nonce before the sealed bytes); the associated data binds each
// sealed value to what it is for, so one is never opened as another. The
// web UI's session cookies and the identity provider's refresh tokens the
// store keeps are sealed with it.
package sealbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// Box seals and opens values under one derived key. It is safe for
// concurrent use.
type Box struct{ aead cipher.AEAD }

// New derives the key of purpose from secret.
func New(secret []byte, purpose string) (*Box, error) {
	key, err := hkdf.Key(sha256.New, secret, nil, purpose, 32)
	if err != nil {
		return nil, fmt.Errorf("derive the key of %s: %w", purpose, err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal seals plain bound to ad: the nonce, then the sealed bytes.
func (b *Box) Seal(plain, ad []byte) ([]byte, error) {
	iv := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(iv); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return b.aead.Seal(iv, iv, plain, ad), nil
}

// ErrOpen is a value that does not open: damaged, forged, sealed under
// another key, or bound to other associated data.
var ErrOpen = errors.New("the sealed value does not open")

// Open opens what Seal sealed with the same ad.
func (b *Box) Open(sealed, ad []byte) ([]byte, error) {
	ns := b.aead.NonceSize()
	if len(sealed) < ns {
		return nil, ErrOpen
	}
	plain, err := b.aead.Open(nil, sealed[:ns], sealed[ns:], ad)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}
