package protocol

// The MEMORY.md index budget (spec/memcore.md §5): the client loads the
// first MaxIndexLines lines of the index, then no more than MaxIndexBytes
// bytes of them; the rest no model sees. memcore truncates what it loads
// to it, the server's health check reports what lies past it.
const (
	MaxIndexLines = 200
	MaxIndexBytes = 25_000
)
