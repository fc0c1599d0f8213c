// Package session implements memcore's small file-based protocols around a
// coding session (spec/memcore.md): session notes and their extraction and
// compaction thresholds (§10), the consolidation gate and lock (§11), agent
// memory scopes and their snapshots (§12), and the daily logs (§13). It builds on
// memcore's Env and path rules and, like memcore, never logs.
package session
