package userconfig

import (
	"errors"
	"path/filepath"
)

// stateDirName is the agent's folder under the user's state directory.
const stateDirName = "teammem"

// ErrNoStateDir is returned by StateDir when no state directory can be
// derived (no XDG_STATE_HOME, no home directory).
var ErrNoStateDir = errors.New("no state directory")

// StateDir returns the folder that holds the agent's journals and lock
// files (spec/agent.md §1): $XDG_STATE_HOME/teammem when XDG_STATE_HOME is
// an absolute path, else %LocalAppData%\teammem on Windows,
// ~/Library/Application Support/teammem on macOS and ~/.local/state/teammem
// elsewhere. getenv, home and goos (runtime.GOOS) are injected. It creates
// nothing.
func StateDir(getenv func(string) string, home, goos string) (string, error) {
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, stateDirName), nil
	}
	if goos == "windows" {
		if x := getenv("LOCALAPPDATA"); x != "" {
			return filepath.Join(x, stateDirName), nil
		}
	}
	if home == "" {
		return "", ErrNoStateDir
	}
	switch goos {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", stateDirName), nil
	case "windows":
		return filepath.Join(home, "AppData", "Local", stateDirName), nil
	default:
		return filepath.Join(home, ".local", "state", stateDirName), nil
	}
}
