package loadgen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// filler is plain prose: nothing in it looks like a credential to the
// server's secret scanner.
const filler = "The team agreed to keep this note short and to update it when the design changes. "

// entryContent returns a Markdown entry of exactly size bytes for key at
// generation gen; different generations give different contents.
func entryContent(key string, gen int64, size int) string {
	var b strings.Builder
	b.Grow(size + len(filler))
	fmt.Fprintf(&b, "# %s\n\nGeneration %d.\n\n", key, gen)
	for b.Len() < size {
		b.WriteString(filler)
	}
	return b.String()[:size]
}

// entryKey returns the i-th seeded key.
func entryKey(i int) string { return fmt.Sprintf("load/entry-%04d.md", i) }

// checksum is the protocol's entry checksum.
func checksum(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(sum[:])
}
