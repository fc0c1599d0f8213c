package userconfig

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReloaderReadsOnlyChanges: the first Load reads the file, an
// unchanged file reads nothing, a changed one is read again, and a file
// that went away is an error.
func TestReloaderReadsOnlyChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.toml")
	if err := os.WriteFile(path, []byte("server = \"http://a\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := NewReloader(path)
	c, changed, err := r.Load()
	if err != nil || !changed || c.Server != "http://a" {
		t.Fatalf("first load = %+v, %v, %v; want server http://a, changed", c, changed, err)
	}
	if _, changed, err := r.Load(); err != nil || changed {
		t.Fatalf("unchanged file: changed %v, err %v", changed, err)
	}
	if err := os.WriteFile(path, []byte("server = \"http://b\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second) // same size: the time must tell
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if c, changed, err := r.Load(); err != nil || !changed || c.Server != "http://b" {
		t.Fatalf("changed file = %+v, %v, %v; want server http://b, changed", c, changed, err)
	}
	os.Remove(path)
	if _, _, err := r.Load(); err == nil {
		t.Fatal("a removed file loaded without error")
	}
}
