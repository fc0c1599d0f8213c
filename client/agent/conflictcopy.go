package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/internal/atomicfile"
)

// maxConflictCopies bounds the names tried for the conflict copies of one
// key made within the same second.
const maxConflictCopies = 100

// writeConflictCopy saves content beside key as a new conflict copy and
// returns its key. The file is created exclusively: a copy made earlier in
// the same second keeps its name, and the next one gets "-2", "-3", … after
// the host.
func writeConflictCopy(dir, key string, at time.Time, host string, content []byte) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	first := ConflictName(key, at, host)
	for n := 1; n <= maxConflictCopies; n++ {
		name := numbered(first, n)
		err := atomicfile.CreateIn(root, filepath.FromSlash(name), 0o644, atomicfile.Bytes(content))
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, err
	}
	return "", fmt.Errorf("%d conflict copies of %q this second: %w", maxConflictCopies, key, fs.ErrExist)
}

// numbered returns name with "-n" before its extension, name itself for 1.
func numbered(name string, n int) string {
	if n == 1 {
		return name
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(n) + ext
}
