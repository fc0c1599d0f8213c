package events

import (
	"context"

	"github.com/teammem/teammem/server"
)

// LocalBroker is the Broker of a store only one process uses (the embedded
// store): there is no other process to tell, and the Hub fans the
// process's own writes out to its subscribers itself.
type LocalBroker struct{}

var _ server.Broker = LocalBroker{}

// Publish does nothing: no other process shares the store.
func (LocalBroker) Publish(context.Context, *server.Event) error { return nil }

// Listen waits for ctx to end: no notice ever comes from elsewhere.
func (LocalBroker) Listen(ctx context.Context, _ server.Receiver) error {
	<-ctx.Done()
	return nil
}

// Ready is always nil.
func (LocalBroker) Ready() error { return nil }
