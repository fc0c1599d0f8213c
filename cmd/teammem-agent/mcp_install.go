package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/mcpinstall"
)

// runMCPInstall is `teammem-agent mcp install|uninstall --client NAME`:
// the teammem entry of the client's user-level MCP configuration, pointing
// at this program's `mcp`, shown as a diff and written unless --dry-run.
func runMCPInstall(_ context.Context, e *cliEnv, verb string, args []string) error {
	fs := newFlagSet("mcp "+verb, "mcp "+verb+" --client "+strings.Join(assistants.Names(assistants.All), "|")+" [--dry-run]", e.Stdout)
	name := fs.String("client", "", "the assistant whose user configuration to edit: `NAME`, one of "+strings.Join(assistants.Names(assistants.All), ", "))
	dryRun := fs.Bool("dry-run", false, "print the change without writing it")
	command := fs.String("command", "", "the teammem-agent `PATH` the client runs (default: this program)")
	if err := parseFlags(fs, args, e.Getenv); err != nil {
		return helpOK(err)
	}
	if *name == "" {
		return errUsage("mcp %s: --client is required: one of %s", verb, strings.Join(assistants.Names(assistants.All), ", "))
	}
	if *command == "" && verb == "install" {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find this program to point the client at: %w; pass --command PATH", err)
		}
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		*command = self
	}
	c, err := mcpinstall.Plan(*name, e.assistantsEnv(), verb == "install", *command, "mcp")
	if err != nil {
		return errUsage("mcp %s: %v", verb, err)
	}
	if !c.Changed() {
		fmt.Fprintf(e.Stdout, "%s: nothing to change\n", c.Path)
		return nil
	}
	fmt.Fprint(e.Stdout, c.Diff())
	if *dryRun {
		fmt.Fprintf(e.Stdout, "(dry run: %s not written)\n", c.Path)
		return nil
	}
	if err := mcpinstall.Apply(c); err != nil {
		return err
	}
	if verb == "uninstall" {
		fmt.Fprintf(e.Stdout, "wrote %s; restart %s to drop the teammem tools\n", c.Path, *name)
		return nil
	}
	fmt.Fprintf(e.Stdout, "wrote %s; restart %s to load the teammem tools (server and token come from agent.toml or TEAMMEM_SERVER/TEAMMEM_TOKEN, never this file)\n", c.Path, *name)
	return nil
}
