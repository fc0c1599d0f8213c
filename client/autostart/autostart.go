// Package autostart installs the agent as a per-user background service that
// starts at login: a systemd user unit on Linux, a launchd agent on macOS.
// Other systems get ErrUnsupported. The service runs `teammem-agent run
// --config FILE`, which syncs every registered checkout.
package autostart

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/internal/atomicfile"
)

// ErrUnsupported is returned by New on a system without a supported
// service manager.
var ErrUnsupported = errors.New("not supported yet")

// Service is the agent's service definition on this system.
type Service struct {
	// Path is where the definition is written.
	Path string
	// Args is the command the service runs, the agent's absolute path
	// first.
	Args []string
	// kind is "systemd" or "launchd".
	kind string
	// logPath is launchd's log file.
	logPath string
	// Control runs the service manager (systemctl, launchctl); tests and
	// installs without one replace it. Its output is returned with errors.
	Control func(name string, args ...string) ([]byte, error)
}

// Names of the service.
const (
	unitName = "teammem-agent.service"
	label    = "dev.teammem.agent"
)

// New returns the service definition for goos: agent is the agent's
// absolute path and config its configuration file; getenv and home locate
// the user's service folder (XDG_CONFIG_HOME/systemd/user or
// ~/.config/systemd/user on Linux, ~/Library/LaunchAgents on macOS).
func New(goos string, getenv func(string) string, home, agent, config string) (*Service, error) {
	s := &Service{Args: []string{agent, "run", "--config", config}, Control: control}
	switch goos {
	case "linux":
		base := getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(base) {
			if home == "" {
				return nil, errors.New("no home directory for the systemd user unit")
			}
			base = filepath.Join(home, ".config")
		}
		s.kind, s.Path = "systemd", filepath.Join(base, "systemd", "user", unitName)
	case "darwin":
		if home == "" {
			return nil, errors.New("no home directory for the launchd agent")
		}
		s.kind, s.Path = "launchd", filepath.Join(home, "Library", "LaunchAgents", label+".plist")
		s.logPath = filepath.Join(home, "Library", "Logs", "teammem-agent.log")
	default:
		return nil, fmt.Errorf("a service on %s is %w: start `teammem-agent run` at login with the system's own tools", goos, ErrUnsupported)
	}
	return s, nil
}

// Definition is the unit file or the property list.
func (s *Service) Definition() string {
	if s.kind == "launchd" {
		return s.plist()
	}
	return s.unit()
}

// Install writes the definition (replacing an older one) and, when start,
// has the service manager start it now and at every login.
func (s *Service) Install(start bool) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o755); err != nil {
		return fmt.Errorf("install the service: %w", err)
	}
	if err := atomicfile.Write(s.Path, 0o644, atomicfile.Bytes([]byte(s.Definition()))); err != nil {
		return fmt.Errorf("install the service: %w", err)
	}
	if !start {
		return nil
	}
	if s.kind == "launchd" {
		s.run("launchctl", "bootout", s.target()) //nolint:errcheck // not loaded yet is fine
		return s.run("launchctl", "bootstrap", s.domain(), s.Path)
	}
	if err := s.run("systemctl", "--user", "daemon-reload"); err != nil {
		return err
	}
	return s.run("systemctl", "--user", "enable", "--now", unitName)
}

// Uninstall stops the service, keeps it from starting at login and
// removes its definition. A service that is not installed is no error.
func (s *Service) Uninstall(stop bool) error {
	if stop {
		if s.kind == "launchd" {
			s.run("launchctl", "bootout", s.target()) //nolint:errcheck // not loaded is fine
		} else {
			s.run("systemctl", "--user", "disable", "--now", unitName) //nolint:errcheck // not enabled is fine
		}
	}
	if err := os.Remove(s.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("uninstall the service: %w", err)
	}
	if stop && s.kind == "systemd" {
		return s.run("systemctl", "--user", "daemon-reload")
	}
	return nil
}

// StartCommand is the command that starts the installed service now and
// at every login, for a person who installed it with start false.
func (s *Service) StartCommand() string {
	if s.kind == "launchd" {
		return "launchctl bootstrap " + s.domain() + " " + s.Path
	}
	return "systemctl --user daemon-reload && systemctl --user enable --now " + unitName
}

// State says whether the definition is installed and what the service
// manager reports of it ("" when asked not to ask it).
func (s *Service) State(ask bool) (installed bool, state string) {
	if _, err := os.Stat(s.Path); err != nil {
		return false, "not installed"
	}
	if !ask {
		return true, "installed"
	}
	var out []byte
	if s.kind == "launchd" {
		out, _ = s.Control("launchctl", "print", s.target())
		if strings.Contains(string(out), "state = running") {
			return true, "running"
		}
		return true, "installed, not running"
	}
	out, _ = s.Control("systemctl", "--user", "is-active", unitName)
	return true, strings.TrimSpace(string(out))
}

// run runs the service manager, turning a failure into one sentence.
func (s *Service) run(name string, args ...string) error {
	out, err := s.Control(name, args...)
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// control runs a service manager command.
func control(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}
