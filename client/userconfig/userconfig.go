// Package userconfig is the agent user's own configuration: agent.toml (the
// server and token login saved, the checkouts add registered) and where it
// lives, and the state directory that holds the journals and lock files.
package userconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/teammem/teammem/internal/atomicfile"
)

// Config is the agent's configuration file, agent.toml: the server
// and token `login` saved and the checkouts `add` registered. Flags and
// their environment twins override it.
type Config struct {
	Server string `toml:"server,omitempty"`
	Token  string `toml:"token,omitempty"`
	// Inject, when false, keeps no team memory block in the checkouts'
	// CLAUDE.local.md (as --no-inject does); unset means true.
	Inject *bool `toml:"inject,omitempty"`
	// Assistants names the assistants whose instruction files get the
	// block in every checkout (claude, codex, gemini, cursor, copilot,
	// windsurf), unless a checkout names its own; unset: detected.
	Assistants []string `toml:"assistants,omitempty"`
	// Personal, when true, also syncs every registered checkout's private
	// memory (its project's memory folder but team/) with the user's
	// personal memory on the server; a checkout's own setting wins.
	Personal  bool       `toml:"personal,omitempty"`
	Checkouts []Checkout `toml:"checkout,omitempty"`
}

// Checkout is one registered git working tree; Repo, when set, overrides
// the slug read from its remote; Personal, when set, says whether its
// private memory is synced too (unset: the configuration's Personal).
type Checkout struct {
	Path string `toml:"path"`
	Repo string `toml:"repo,omitempty"`
	// Assistants, when set, is this checkout's choice of assistants (see
	// Config.Assistants).
	Assistants []string `toml:"assistants,omitempty"`
	Personal   *bool    `toml:"personal,omitempty"`
}

// PersonalFor reports whether co's private memory is synced.
func (c Config) PersonalFor(co Checkout) bool {
	if co.Personal != nil {
		return *co.Personal
	}
	return c.Personal
}

// PersonalAny reports whether the personal memory of any checkout is
// synced, or of every one (Personal): the switch that also syncs the
// user's agent memory.
func (c Config) PersonalAny() bool {
	return c.Personal || slices.ContainsFunc(c.Checkouts, c.PersonalFor)
}

// same reports whether two registrations say the same.
func (co Checkout) same(o Checkout) bool {
	return co.Path == o.Path && co.Repo == o.Repo && slices.Equal(co.Assistants, o.Assistants) &&
		(co.Personal == nil) == (o.Personal == nil) && (co.Personal == nil || *co.Personal == *o.Personal)
}

// ErrNoConfigDir is returned by Path when no configuration directory
// can be derived.
var ErrNoConfigDir = errors.New("no configuration directory")

// Path returns where agent.toml lives: $XDG_CONFIG_HOME/teammem
// when XDG_CONFIG_HOME is absolute, else ~/.config/teammem on Linux and
// other Unix systems, ~/Library/Application Support/teammem on macOS and
// %AppData%\teammem on Windows. It creates nothing.
func Path(getenv func(string) string, home, goos string) (string, error) {
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, stateDirName, "agent.toml"), nil
	}
	if x := getenv("APPDATA"); goos == "windows" && x != "" {
		return filepath.Join(x, stateDirName, "agent.toml"), nil
	}
	if home == "" {
		return "", ErrNoConfigDir
	}
	switch goos {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", stateDirName, "agent.toml"), nil
	case "windows":
		return filepath.Join(home, "AppData", "Roaming", stateDirName, "agent.toml"), nil
	}
	return filepath.Join(home, ".config", stateDirName, "agent.toml"), nil
}

// Load reads the configuration at path; a missing file is the
// empty configuration.
func Load(path string) (Config, error) {
	var c Config
	md, err := toml.DecodeFile(path, &c)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read %s: %w", path, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return Config{}, fmt.Errorf("read %s: unknown setting %q", path, un[0].String())
	}
	return c, nil
}

// Save writes the configuration to path atomically, mode 0600 (it may hold
// a token), creating its folder (0700).
func (c Config) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	var b strings.Builder
	b.WriteString("# teammem-agent configuration (teammem-agent login, add, remove).\n")
	if err := toml.NewEncoder(&b).Encode(c); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	if err := atomicfile.Write(path, 0o600, atomicfile.Bytes([]byte(b.String()))); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return os.Chmod(path, 0o600) // an older file may have had a wider mode
}

// Add registers a checkout (an absolute, cleaned path), replacing the
// entry of the same path; it reports whether anything changed.
func (c *Config) Add(co Checkout) bool {
	i := slices.IndexFunc(c.Checkouts, func(x Checkout) bool { return x.Path == co.Path })
	if i >= 0 {
		if c.Checkouts[i].same(co) {
			return false
		}
		c.Checkouts[i] = co
		return true
	}
	c.Checkouts = append(c.Checkouts, co)
	return true
}

// Remove unregisters the checkout at path; it reports whether it was
// registered.
func (c *Config) Remove(path string) bool {
	n := len(c.Checkouts)
	c.Checkouts = slices.DeleteFunc(c.Checkouts, func(x Checkout) bool { return x.Path == path })
	return len(c.Checkouts) != n
}

// Has reports whether the checkout at path is registered.
func (c Config) Has(path string) bool {
	return slices.ContainsFunc(c.Checkouts, func(x Checkout) bool { return x.Path == path })
}
