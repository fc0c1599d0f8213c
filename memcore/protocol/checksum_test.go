package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

func TestEntryChecksum(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"empty", "", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "abc", "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EntryChecksum([]byte(tc.content)); got != tc.want {
				t.Fatalf("EntryChecksum(%q) = %s, want %s", tc.content, got, tc.want)
			}
		})
	}
}

func TestDatasetChecksum(t *testing.T) {
	a, b := EntryChecksum([]byte("alpha")), EntryChecksum([]byte("beta"))
	// Byte order: "B.md" < "a.md" (upper case first), and "a.md" < "a/b.md"
	// because '.' (0x2E) sorts before '/' (0x2F).
	manual := func(lines string) string {
		sum := sha256.Sum256([]byte(lines))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	tests := []struct {
		name    string
		entries map[string]string
		want    string
	}{
		{"nil", nil, EmptyDatasetChecksum},
		{"empty", map[string]string{}, manual("")},
		{"one", map[string]string{"MEMORY.md": a}, manual("MEMORY.md\x00" + a + "\n")},
		{"byte order", map[string]string{"a/b.md": b, "a.md": a, "B.md": b},
			manual("B.md\x00" + b + "\n" + "a.md\x00" + a + "\n" + "a/b.md\x00" + b + "\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DatasetChecksum(tc.entries); got != tc.want {
				t.Fatalf("DatasetChecksum = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestDatasetChecksumChangesWithContent(t *testing.T) {
	one := DatasetChecksum(map[string]string{"a.md": EntryChecksum([]byte("x"))})
	other := DatasetChecksum(map[string]string{"a.md": EntryChecksum([]byte("y"))})
	renamed := DatasetChecksum(map[string]string{"b.md": EntryChecksum([]byte("x"))})
	if one == other || one == renamed || one == EmptyDatasetChecksum {
		t.Fatalf("checksums do not distinguish datasets: %s %s %s", one, other, renamed)
	}
}

func TestDatasetHasherMatchesMap(t *testing.T) {
	entries := benchEntries(50)
	h := NewDatasetHasher()
	if got := h.Sum(); got != EmptyDatasetChecksum {
		t.Fatalf("empty hasher = %s", got)
	}
	for _, k := range sortedKeys(entries) {
		h.Add(k, entries[k])
	}
	if got, want := h.Sum(), DatasetChecksum(entries); got != want {
		t.Fatalf("streamed %s, map %s", got, want)
	}
}

// benchEntries returns n keys with their entry checksums.
func benchEntries(n int) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		m[fmt.Sprintf("notes/topic-%04d.md", i)] = EntryChecksum(fmt.Appendf(nil, "content %d", i))
	}
	return m
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ { // insertion sort: keeps the test independent of slices.Sort
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func BenchmarkDatasetChecksum(b *testing.B) {
	entries := benchEntries(1000)
	b.ReportAllocs()
	for b.Loop() {
		DatasetChecksum(entries)
	}
}

func TestDatasetHasherClone(t *testing.T) {
	entries := benchEntries(10)
	keys := sortedKeys(entries)
	h := NewDatasetHasher()
	for _, k := range keys[:4] {
		h.Add(k, entries[k])
	}
	c, err := h.Clone()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys[4:] {
		c.Add(k, entries[k])
	}
	if got, want := c.Sum(), DatasetChecksum(entries); got != want {
		t.Errorf("clone continued to %s, want %s", got, want)
	}
	prefix := map[string]string{}
	for _, k := range keys[:4] {
		prefix[k] = entries[k]
	}
	if got, want := h.Sum(), DatasetChecksum(prefix); got != want {
		t.Errorf("the original moved with its clone: %s, want %s", got, want)
	}
}

func TestValidChecksum(t *testing.T) {
	good := EntryChecksum([]byte("x"))
	for s, want := range map[string]bool{
		good: true, EmptyDatasetChecksum: true,
		"": false, "sha256:": false, good[:len(good)-1]: false, good + "0": false,
		strings.ToUpper(good): false, "md5:" + good[7:]: false, good[:70] + "g": false,
	} {
		if got := ValidChecksum(s); got != want {
			t.Errorf("ValidChecksum(%q) = %v; want %v", s, got, want)
		}
	}
}
