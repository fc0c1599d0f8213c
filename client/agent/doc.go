// Package agent is the sync engine of teammem-agent (spec/agent.md): the pure
// reconcile plan that decides, key by key, what moves between the local team
// memory folder and the server; the line-based three-way merge used when both
// sides edited a key; the journal that remembers what was last agreed with
// the server; the batching and skip rules of a push; and the engine loop that
// drives them. After each cycle the engine hands what it found to its
// subscribers, which keep something else in step with it: the block writer
// the team memory block of the checkouts (with the stale-reference check),
// the stale report the server's copy of that check's findings. The block
// writer also watches the files outside the folder its blocks depend on (a
// checkout's HEAD, AGENTS.md, the configuration): when one changes, the
// engine hands its subscribers the last cycle's end again, without syncing.
// While Claude Code consolidates the memory folder (a live consolidation lock), the
// engine applies the server's changes but holds its pushes, and pushes the
// consolidation's final state as one write once it ends.
//
// Everything but the engine loop is pure or touches only the journal file, so
// that the decisions are table-tested without a server. The package never
// logs: it returns errors and reports warnings to its caller.
package agent
