package userconfig

import (
	"fmt"
	"os"
)

// Reloader reads the configuration file again only when it changed: the
// running agent asks it every few seconds and rebuilds its engines when the
// answer is new.
type Reloader struct {
	path  string
	stamp string // modification time and size of the file last read
}

// NewReloader returns a Reloader of the configuration at path.
func NewReloader(path string) *Reloader { return &Reloader{path: path} }

// Path returns the configuration file the Reloader reads.
func (r *Reloader) Path() string { return r.path }

// Load returns the configuration and true when the file changed since the
// last call that returned true (the first call always reads it), or false
// and the zero Config when it did not. A file that went away is an error.
func (r *Reloader) Load() (Config, bool, error) {
	fi, err := os.Stat(r.path)
	if err != nil {
		return Config{}, false, fmt.Errorf("read the configuration: %w", err)
	}
	st := fmt.Sprint(fi.ModTime().UnixNano(), fi.Size())
	if st == r.stamp {
		return Config{}, false, nil
	}
	c, err := Load(r.path)
	if err != nil {
		return Config{}, false, err
	}
	r.stamp = st
	return c, true, nil
}
