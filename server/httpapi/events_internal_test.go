package httpapi

import (
	"bytes"
	"testing"

	"github.com/teammem/teammem/server"
)

// TestEventChunkSharedByStreams: an event is framed as a chunk once, and
// every stream sends that same chunk (a ResponseWriter its frame); the
// fixed frames are chunks too.
func TestEventChunkSharedByStreams(t *testing.T) {
	e := &server.Event{Repo: "acme/api", Version: 7, Changed: []string{"a.md"}, Author: "ana"}
	var chunks eventChunks
	a, b := chunks.of(e), chunks.of(e)
	if &a[0] != &b[0] {
		t.Error("the event was framed again for the second stream")
	}
	for _, c := range [][]byte{a, retryChunk, heartbeatChunk} {
		if f := chunkFrame(c); !bytes.Equal(chunk(f), c) || !bytes.HasSuffix(f, []byte("\n\n")) {
			t.Errorf("chunk %q holds frame %q", c, f)
		}
	}
	if f := chunkFrame(a); !bytes.Equal(f, encodeEvent(e)) {
		t.Errorf("the event's chunk holds %q, want %q", f, encodeEvent(e))
	}
}
