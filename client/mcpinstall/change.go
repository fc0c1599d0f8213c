// Package mcpinstall writes and removes the teammem entry of an assistant's
// user-level MCP configuration (where and in which format is the
// assistants table's), pointing at `teammem-agent mcp`. It
// edits only that entry: the rest of the file stays byte for byte (a JSON
// file's member is spliced in place; a TOML file's table is replaced or
// appended). It writes user-scope files only, never a file of a repository,
// and never a token: the agent reads its own configuration.
package mcpinstall

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/internal/atomicfile"
	"github.com/teammem/teammem/internal/linediff"
)

// ServerName is the entry's name; clients show the tools as
// mcp__teammem__<tool>.
const ServerName = "teammem"

// ErrUnknownClient is a name Plan does not know (not in assistants.All).
var ErrUnknownClient = errors.New("unknown client")

// Change is the edit of one configuration file.
type Change struct {
	Path     string
	Old, New []byte
	exists   bool
	mode     os.FileMode
}

// Changed reports whether the edit changes the file.
func (c Change) Changed() bool { return string(c.Old) != string(c.New) }

// Diff is the edit as a unified diff.
func (c Change) Diff() string {
	return linediff.Unified(c.Path, c.Path, string(c.Old), string(c.New))
}

// Plan reads the client's configuration file and returns the edit that
// installs the entry running command with args (install), or removes it.
// Errors: ErrUnknownClient, a file that cannot be read, or whose format
// would not survive the edit (invalid JSON or TOML, a non-object).
func Plan(name string, e assistants.Env, install bool, command string, args ...string) (Change, error) {
	a, ok := assistants.Lookup(name)
	if !ok {
		return Change{}, fmt.Errorf("%w %q: want one of %s", ErrUnknownClient, name, strings.Join(assistants.Names(assistants.All), ", "))
	}
	cl := a.MCP
	if e.Home == "" {
		return Change{}, errors.New("no home directory: set HOME")
	}
	c := Change{Path: cl.Path(e), mode: 0o600}
	if real, err := filepath.EvalSymlinks(c.Path); err == nil {
		c.Path = real // a dotfiles link: edit the file it points at, keep the link
	}
	old, err := os.ReadFile(c.Path)
	switch {
	case err == nil:
		c.exists = true
		if fi, err := os.Stat(c.Path); err == nil {
			c.mode = fi.Mode().Perm()
		}
	case !errors.Is(err, os.ErrNotExist):
		return Change{}, fmt.Errorf("read %s: %w", c.Path, err)
	}
	c.Old = old
	if cl.Format == assistants.TOML {
		body := ""
		if install {
			body = "command = " + strconv.Quote(command) + "\nargs = " + tomlStrings(args) + "\n"
		}
		c.New, err = setTOMLTable(old, cl.Container, ServerName, body)
	} else {
		var entry any
		if install {
			entry = jsonEntry(cl.Typed, command, args)
		}
		c.New, err = setJSON(old, cl.Container, ServerName, entry)
	}
	if err != nil {
		return Change{}, fmt.Errorf("edit %s: %w", c.Path, err)
	}
	return c, nil
}

// jsonEntry is the server's JSON entry, its members in a fixed order.
func jsonEntry(typed bool, command string, args []string) any {
	type stdio struct {
		Type    string   `json:"type,omitempty"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	e := stdio{Command: command, Args: args}
	if typed {
		e.Type = "stdio"
	}
	return e
}

func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Apply writes the edit atomically (creating the file's folder, private
// to the user, when it is new); an edit that changes nothing writes
// nothing.
func Apply(c Change) error {
	if !c.Changed() {
		return nil
	}
	if !c.exists {
		if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(c.Path), err)
		}
	}
	return atomicfile.Write(c.Path, c.mode, atomicfile.Bytes(c.New))
}

// Installed reports whether the client's user-level configuration holds
// the teammem entry (whatever command it runs); false when it cannot be
// read.
func Installed(name string, e assistants.Env) bool {
	c, err := Plan(name, e, false, "")
	return err == nil && c.Changed()
}
