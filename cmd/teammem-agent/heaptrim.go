package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Heap trimming of the daemon: a pull or a rescan of a large team folder
// allocates several times the repo's size for a moment, and Go's background
// scavenger returns that memory to the system only slowly, so an idle agent
// would keep tens of megabytes it does not use. trimHeap returns it soon
// after a burst, and costs nothing while there is nothing to return.
const (
	trimEvery    = 5 * time.Second
	trimAtLeast  = 4 << 20 // free, unreturned heap bytes worth a trim
	heapFreeName = "/memory/classes/heap/free:bytes"
)

// trimHeap checks every trimEvery until ctx is done and returns the free
// heap to the system when it exceeds trimAtLeast.
func trimHeap(ctx context.Context) {
	t := time.NewTicker(trimEvery)
	defer t.Stop()
	sample := []metrics.Sample{{Name: heapFreeName}}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() >= trimAtLeast {
			debug.FreeOSMemory()
		}
	}
}
