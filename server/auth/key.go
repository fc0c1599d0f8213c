// Package auth issues and verifies teammem's JWTs: the server's own Ed25519
// tokens and, optionally, tokens of OIDC issuers (for CI). It is the only
// package that imports golang-jwt.
package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teammem/teammem/internal/atomicfile"
)

// LoadOrCreateKey reads the Ed25519 signing key at path (a PEM "PRIVATE KEY"
// PKCS#8 block). When the file does not exist and create is true, it makes a
// new key and writes it with mode 0600 (atomically, never overwriting a key
// another process wrote meanwhile). created reports whether it did.
func LoadOrCreateKey(path string, create bool) (key ed25519.PrivateKey, created bool, err error) {
	key, err = LoadKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !create {
		return key, false, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, fmt.Errorf("generate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, false, fmt.Errorf("encode signing key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if err := WriteFileExclusive(path, data); err != nil {
		if errors.Is(err, fs.ErrExist) { // another process won the race: use its key
			key, err = LoadKey(path)
			return key, false, err
		}
		return nil, false, fmt.Errorf("write signing key: %w", err)
	}
	return priv, true, nil
}

// LoadKey reads an Ed25519 private key from a PKCS#8 PEM file.
func LoadKey(path string) (ed25519.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("read signing key %s: no PEM \"PRIVATE KEY\" block", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("read signing key %s: %w", path, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("read signing key %s: not an Ed25519 key (%T)", path, k)
	}
	return priv, nil
}

// WriteFileExclusive writes data to path with mode 0600 only when path does
// not exist: it writes a temporary file beside it, fsyncs it and links it
// into place, so that readers never see a partial file and an existing file
// is never replaced (the error then wraps fs.ErrExist).
func WriteFileExclusive(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Create(path, 0o600, atomicfile.Bytes(data))
}
