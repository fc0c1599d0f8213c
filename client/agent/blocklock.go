package agent

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/teammem/teammem/internal/filelock"
)

// LockBlocks takes, waiting for it, this user's machine-wide lock of the
// team memory blocks (blocks.lock in LockDir): a running agent updates its
// checkouts' blocks under it (BlockConfig.Hold), and `remove` unregisters a
// checkout and takes its block out under it, so that an agent that read the
// configuration before the remove cannot write the block back after it.
func LockBlocks() (release func(), err error) {
	dir, err := LockDir()
	if err != nil {
		return nil, err
	}
	if err := ensureLockDir(dir); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "blocks.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the team memory blocks: %w", err)
	}
	if err := filelock.Wait(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the team memory blocks: %w", err)
	}
	return func() { filelock.Unlock(f); f.Close() }, nil
}
