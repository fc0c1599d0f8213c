package teamblock

import (
	"fmt"

	"github.com/teammem/teammem/client/gitremote"
)

// KeepOutOfGit adds name (a slash path from the checkout's top, a file or
// a folder) to the info/exclude of the repository of the checkout at root,
// unless git ignores it there already; a .gitignore is never edited. The
// agent keeps what it writes into a checkout that is never to be shared
// (the local-scope agent memory it syncs) out of commits this way.
func KeepOutOfGit(root, name string) error {
	co, err := gitremote.OpenCheckout(root)
	if err != nil {
		return fmt.Errorf("keep %s out of git: %w", name, err)
	}
	return excludeFromGit(co, name)
}
