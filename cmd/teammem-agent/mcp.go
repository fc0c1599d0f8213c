package main

import (
	"context"
	"errors"
	"strings"

	"github.com/teammem/teammem/client/mcprest"
	"github.com/teammem/teammem/internal/buildinfo"
	"github.com/teammem/teammem/mcptools"
)

func init() {
	register(command{Name: "mcp", Summary: "serve the team memory tools to an assistant over MCP on stdio; mcp install|uninstall configures a client", Run: runMCP})
}

// runMCP is `teammem-agent mcp`: the MCP tools over stdio, talking to the
// server with the usual server and token (flags, TEAMMEM_SERVER and
// TEAMMEM_TOKEN, agent.toml); repo defaults to the checkout's slug.
func runMCP(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 && (args[0] == "install" || args[0] == "uninstall") {
		return runMCPInstall(ctx, e, args[0], args[1:])
	}
	fs := newFlagSet("mcp", "mcp [--server URL] [--token-file FILE] [--repo SLUG]\n\n"+
		"Commands:\n"+
		"  install    write the teammem entry of an assistant's user-level MCP configuration (--client NAME, --dry-run)\n"+
		"  uninstall  remove it", e.Stdout)
	var c commonFlags
	c.registerConnection(fs)
	fs.StringVar(&c.dir, "dir", "", "team memory `DIR` that search_memories searches when the server is unreachable (default: the team folder of the repository's auto memory)")
	if err := parseFlags(fs, args, e.Getenv); err != nil {
		return helpOK(err)
	}
	log, err := newLogger(e, c.logLevel)
	if err != nil {
		return err
	}
	if _, err := c.applyConfig(e); err != nil {
		return err
	}
	s := &session{e: e, flags: c, log: log, server: strings.TrimRight(c.server, "/")}
	cl, err := s.newClient()
	if err != nil {
		return err
	}
	slug, err := resolveSlug(e, c)
	if err != nil {
		log.Info("no default repository: every call names its repo", "reason", err)
		slug = ""
	}
	local := mcprest.Local{Repo: slug, Kind: folderKind(c)}
	if slug != "" {
		if local.Dir, local.Exclude, err = resolveFolder(e, c); err != nil {
			log.Info("no local folder to search when the server is unreachable", "reason", err)
		}
	}
	srv := mcptools.NewServer(mcprest.New(cl, local), mcptools.Options{DefaultRepo: slug, Version: buildinfo.Version(version),
		Observe: func(ctx context.Context, call mcptools.Call) {
			log.Debug("mcp tool call", "tool", call.Tool, "outcome", call.Outcome, "repo", call.Repo, "key", call.Key, "duration", call.Duration)
		}})
	if err := mcptools.ServeStdio(ctx, srv); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
