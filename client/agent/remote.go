package agent

import (
	"context"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// Remote is the server side of the engine, satisfied by *client.Client; a
// fake injects faults in tests.
//
// Errors are those of client.Client: they match client's sentinels with
// errors.Is (ErrNotModified, ErrNotFound, ErrGone, ErrPreconditionFailed,
// ErrTooLarge, ErrUnprocessable, ErrUnauthorized, ErrForbidden,
// ErrRateLimited, ErrServer, ErrNetwork, ...) and client.IsRetryable and
// client.RetryAfter apply to them. Implementations must be safe for use by
// one goroutine at a time; the engine never calls them concurrently.
type Remote interface {
	// Get pulls the repo, in full or since a version (client.Client.Get).
	Get(ctx context.Context, repo string, opts client.GetOptions) (*api.TeamMemory, error)
	// Hashes fetches the repo's checksums without contents.
	Hashes(ctx context.Context, repo string) (*api.Hashes, error)
	// Put pushes one batch; ifMatch makes it conditional.
	Put(ctx context.Context, repo string, req api.PutRequest, ifMatch string) (*api.PutResponse, error)
}

var _ Remote = (*client.Client)(nil)
