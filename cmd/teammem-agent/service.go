package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/teammem/teammem/client/autostart"
)

func init() {
	register(command{Name: "service", Summary: "start the agent at login: install, uninstall or show its user service",
		Run: runService})
}

// runService is `teammem-agent service install|uninstall|status|print`.
func runService(_ context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("service", "service <install|uninstall|status|print> [--no-start] [flags]\n\n"+
		"A systemd user unit on Linux, a launchd agent on macOS, running `teammem-agent run`\n"+
		"for every registered checkout (see login and add). print writes the definition\n"+
		"install would write to stdout and changes nothing.", e.Stdout)
	var c commonFlags
	c.register(fs)
	noStart := fs.Bool("no-start", false, "only write (or remove) the definition; do not ask systemctl or launchctl")
	goos := fs.String("os", runtime.GOOS, "with print: the `system` whose definition to print (linux or darwin)")
	agentPath := fs.String("agent", "", "with print: the agent's `path` in the definition (default: this program)")
	pos, err := parseArgs(fs, args, e.Getenv, 1, 1)
	if err != nil {
		return helpOK(err)
	}
	config, err := c.configPath(e)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program: %w", err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	if pos[0] == "print" {
		if *agentPath != "" {
			self = *agentPath
		}
		svc, err := autostart.New(*goos, e.Getenv, e.Home, self, config)
		if err != nil {
			return err
		}
		fmt.Fprint(e.Stdout, svc.Definition())
		return nil
	}
	svc, err := autostart.New(runtime.GOOS, e.Getenv, e.Home, self, config)
	if err != nil {
		return err
	}
	out := newPrinter(e, "service", c.json)
	switch pos[0] {
	case "install":
		if _, err := os.Stat(config); err != nil {
			return fmt.Errorf("no configuration at %s: log in first (teammem-agent login --server URL < token-file), then add checkouts", config)
		}
		if err := svc.Install(!*noStart); err != nil {
			return fmt.Errorf("%w; the definition is at %s", err, svc.Path)
		}
	case "uninstall":
		if err := svc.Uninstall(!*noStart); err != nil {
			return err
		}
	case "status":
	default:
		return errUsage("service: want install, uninstall, status or print, got %q", pos[0])
	}
	installed, state := svc.State(!*noStart)
	if c.json {
		out.object(map[string]any{"path": svc.Path, "installed": installed, "state": state, "command": svc.Args})
		return nil
	}
	fmt.Fprintf(e.Stdout, "service:   %s\nstate:     %s\n", svc.Path, state)
	if pos[0] == "install" && *noStart {
		fmt.Fprintf(e.Stdout, "start it:  %s\n", svc.StartCommand())
	}
	return nil
}
