package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/client/userconfig"
)

func init() {
	register(command{Name: "login", Summary: "save the server and a token (read from stdin) in the agent's configuration file",
		Run: runLogin})
	register(command{Name: "add", Summary: "register a checkout for `run` to sync (default: the current one)",
		Run: checkoutCommand("add", "add [DIR] [--repo SLUG] [flags]", addCheckout)})
	register(command{Name: "remove", Summary: "stop syncing a registered checkout (default: the current one)",
		Run: checkoutCommand("remove", "remove [DIR] [flags]", removeCheckout)})
}

// runLogin is `teammem-agent login --server URL`: it reads the token from
// stdin (or --token-file, or --token), checks it against the server and
// saves both in the configuration file (mode 0600).
func runLogin(ctx context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("login", "login --server URL [--token-file FILE] < token\n       teammem-agent login --server URL [--browser | --device]\n\n"+
		"Reads the token from stdin unless --token-file (or --token) is given. On a terminal, with a server that offers\n"+
		"sign-in, it signs in through the browser instead, or, without a display, with a code entered in any browser.", e.Stdout)
	var c commonFlags
	c.register(fs)
	var browser, device bool
	fs.BoolVar(&browser, "browser", false, "sign in through the browser (the default on a terminal when the server offers it) instead of reading a token")
	fs.BoolVar(&device, "device", false, "sign in with a code entered in any browser (the default on a terminal without a display or a browser)")
	if _, err := parseArgs(fs, args, e.Getenv, 0, 0); err != nil {
		return helpOK(err)
	}
	if c.server == "" {
		return errUsage("login: pass --server URL")
	}
	if browser && device {
		return errUsage("login: pass --browser or --device, not both")
	}
	if c.token == "" && c.tokenFile == "" && (browser || device || stdinIsTerminal(e)) && offersBrowserSignIn(ctx, c.server) {
		return loginInBrowser(ctx, e, c, device || !browser && !canOpenBrowser(e))
	}
	tok, err := loginToken(e, c)
	if err != nil {
		return err
	}
	cl, err := client.New(client.Options{BaseURL: strings.TrimRight(c.server, "/"), Token: tok, UserAgent: userAgent()})
	if err != nil {
		return errUsage("--server %q: %v", c.server, err)
	}
	repos, err := cl.Repos(ctx)
	if err != nil {
		c.token = tok // explain words a refused token, not a missing one
		return (&session{e: e, server: c.server, flags: c}).explain(err)
	}
	path, uc, err := c.loadConfig(e)
	if err != nil {
		return err
	}
	uc.Server, uc.Token = strings.TrimRight(c.server, "/"), tok
	if err := uc.Save(path); err != nil {
		return err
	}
	if c.json {
		newPrinter(e, "login", true).object(map[string]any{"server": uc.Server, "config": path, "readableRepos": len(repos.Repos)})
		return nil
	}
	fmt.Fprintf(e.Stdout, "logged in to %s (the token can read %s); saved in %s\n", uc.Server, plural(len(repos.Repos), "repository", "repositories"), path)
	return nil
}

// loginInBrowser signs in through the browser (on this machine, or with
// a code entered in any browser when device is set) and saves the server
// (and no token) in the configuration file: the agent then uses the
// sign-in's tokens, renewed silently.
func loginInBrowser(ctx context.Context, e *cliEnv, c commonFlags, device bool) error {
	login := browserLogin
	if device {
		login = deviceLogin
	}
	signinPath, subject, err := login(ctx, e, c)
	if err != nil {
		return err
	}
	path, uc, err := c.loadConfig(e)
	if err != nil {
		return err
	}
	uc.Server, uc.Token = strings.TrimRight(c.server, "/"), ""
	if err := uc.Save(path); err != nil {
		return err
	}
	how := "through the browser"
	if device {
		how = "with a code entered in the browser"
	}
	// Who: a code entered by someone else would sign the agent in as them.
	fmt.Fprintf(e.Stdout, "signed in to %s %s as %s; the sign-in is kept in %s, the server in %s\n", uc.Server, how,
		orDefault(subject, "(unknown)"), signinPath, path)
	return nil
}

// stdinIsTerminal reports whether stdin is a terminal (no token piped in).
func stdinIsTerminal(e *cliEnv) bool {
	f, ok := e.Stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// loginToken is --token, else the content of --token-file, else stdin.
func loginToken(e *cliEnv, c commonFlags) (string, error) {
	var tok string
	switch {
	case c.token != "" && c.tokenFile != "":
		return "", errUsage("pass --token or --token-file, not both")
	case c.token != "":
		tok = c.token
	case c.tokenFile != "":
		t, err := tokenFileSource(c.tokenFile)(context.Background())
		if err != nil {
			return "", err
		}
		tok = t
	default:
		t, err := readToken(e, c.server)
		if err != nil {
			return "", err
		}
		tok = t
	}
	tok = strings.TrimSpace(tok)
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", errUsage("login: want one token on stdin (or --token-file FILE); got %s", map[bool]string{true: "nothing", false: "several words"}[tok == ""])
	}
	return tok, nil
}

// readToken reads the token from stdin: on a terminal, one line typed or
// pasted after a prompt, without echo; otherwise all of stdin (a pipe or a
// file).
func readToken(e *cliEnv, server string) (string, error) {
	if f, ok := e.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(e.Stderr, "Token for %s (input hidden; an admin makes one with `teammem-server token create`): ", server)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.Stderr)
		if err != nil {
			return "", fmt.Errorf("read the token from the terminal: %w", err)
		}
		return string(b), nil
	}
	b, err := io.ReadAll(io.LimitReader(e.Stdin, 64<<10))
	if err != nil {
		return "", fmt.Errorf("read the token from stdin: %w", err)
	}
	return string(b), nil
}

// checkoutCommand builds add and remove: the checkout is DIR (default: the
// working directory) resolved to the root of its git working tree.
func checkoutCommand(name, synopsis string, fn func(e *cliEnv, c commonFlags, uc *userconfig.Config, co userconfig.Checkout) (string, error)) func(context.Context, *cliEnv, []string) error {
	return func(_ context.Context, e *cliEnv, args []string) error {
		fs := newFlagSet(name, synopsis, e.Stdout)
		var c commonFlags
		c.register(fs)
		if name == "add" {
			c.registerPersonal(fs, "also sync your personal memory of the repository between your machines (writes personal = true for the checkout)")
		}
		pos, err := parseArgs(fs, args, e.Getenv, 0, 1)
		if err != nil {
			return helpOK(err)
		}
		dir := e.Cwd
		if len(pos) == 1 {
			dir = pos[0]
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(e.Cwd, dir)
		}
		co := userconfig.Checkout{Path: filepath.Clean(dir), Repo: c.repo}
		if c.assistants != "" {
			ts, err := assistants.Parse(c.assistants)
			if err != nil {
				return errUsage("--assistants: %v", err)
			}
			co.Assistants = assistants.Names(ts)
		}
		if root, err := gitremote.FindRepo(co.Path); err == nil {
			co.Path = root
		} else if name == "add" {
			return fmt.Errorf("%s is not in a git working tree: %w", co.Path, err)
		}
		if name == "remove" { // a running agent writes no block meanwhile (agent.LockBlocks)
			release, err := agent.LockBlocks()
			if err != nil {
				return err
			}
			defer release()
		}
		path, uc, err := c.loadConfig(e)
		if err != nil {
			return err
		}
		msg, err := fn(e, c, &uc, co)
		if err != nil {
			return err
		}
		if err := uc.Save(path); err != nil {
			return err
		}
		if c.json {
			newPrinter(e, name, true).object(map[string]any{"checkout": co.Path, "repo": co.Repo, "config": path})
			return nil
		}
		fmt.Fprintln(e.Stdout, msg)
		return nil
	}
}

// addCheckout registers co after checking that its repository can be
// named.
func addCheckout(e *cliEnv, c commonFlags, uc *userconfig.Config, co userconfig.Checkout) (string, error) {
	c.repoDir = co.Path
	slug, err := resolveSlug(e, c)
	if err != nil {
		return "", err
	}
	what := slug
	if c.personal {
		on := true
		co.Personal = &on
		what += ", and your personal memory of it"
	}
	if !uc.Add(co) {
		return fmt.Sprintf("%s is already registered (%s)%s", co.Path, what, readable(e, c, slug)), nil
	}
	hint := ""
	if uc.Server == "" && c.server == "" {
		hint = "; log in with: teammem-agent login --server URL < token-file"
	}
	return fmt.Sprintf("added %s (%s); a running `teammem-agent run` picks it up%s%s", co.Path, what, hint, readable(e, c, slug)), nil
}

// readable asks the server whether the token can read slug, for add to
// say; "" when it can, or there is no server to ask. A refusal is said with
// what to do, and the checkout stays registered (a grant may come; the
// running agent keeps its block out meanwhile).
func readable(e *cliEnv, c commonFlags, slug string) string {
	if _, err := c.applyConfig(e); err != nil || c.server == "" {
		return "" // no server to ask (add says how to log in)
	}
	s := &session{e: e, flags: c, slug: slug, server: strings.TrimRight(c.server, "/")}
	cl, err := s.newClient()
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = cl.Hashes(ctx, slug)
	switch {
	case err == nil, errors.Is(err, client.ErrNotFound): // readable; nothing shared yet
		return ""
	case errors.Is(err, client.ErrForbidden), errors.Is(err, client.ErrUnauthorized):
		return fmt.Sprintf("\nbut the token cannot read %s: %v\nuntil it can, the agent keeps the team memory block out of this checkout", slug, s.explain(err))
	}
	return fmt.Sprintf("\n(could not check that the token can read %s: %v)", slug, s.explain(err))
}

// removeCheckout unregisters co.
func removeCheckout(_ *cliEnv, _ commonFlags, uc *userconfig.Config, co userconfig.Checkout) (string, error) {
	if !uc.Remove(co.Path) {
		return "", errors.New(co.Path + " is not registered (see teammem-agent status)")
	}
	msg := fmt.Sprintf("removed %s; a running `teammem-agent run` stops syncing it (its files stay)", co.Path)
	synced := make([]string, 0, len(uc.Checkouts))
	for _, other := range uc.Checkouts {
		synced = append(synced, other.Path)
	}
	removed, keptBy, err := teamblock.RemoveRepoBlocks(co.Path, synced)
	switch {
	case err != nil:
		msg += fmt.Sprintf("; the team memory block could not be taken out everywhere: %v", err)
	case keptBy != "":
		msg += "; the team memory block stays while " + keptBy + " (the same repository) is synced"
	case len(removed) > 0:
		msg += "; took the team memory block out of " + plural(len(removed), "checkout", "checkouts")
	}
	return msg, nil
}
