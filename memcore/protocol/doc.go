// Package protocol holds the rules of the team memory protocol that the
// server and the agent must apply identically (spec/protocol.md §1–§3,
// spec/memcore.md §8): which keys may name a memory file (ValidateKey), when
// two keys are one file on a case-insensitive file system (FoldKey), the
// entry and dataset checksums, the canonical repository slug
// (CanonicalSlug), and which keys a line of a MEMORY.md index links (Links,
// LinkedKeys, IndexLines): one reading of index links for every surface.
//
// It is a leaf: it imports the standard library and golang.org/x/text only,
// so that the server links these rules without memcore's Markdown, YAML and
// gitignore machinery (testkit/archtest keeps it so).
package protocol
