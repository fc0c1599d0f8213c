package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/internal/linediff"
)

func init() {
	register(command{Name: "log", Summary: "the repository's changes, newest first, or one key's history",
		Run: historyCommand("log", "log [KEY] [--limit N] [flags]", 0, 1, runLog)})
	register(command{Name: "show", Summary: "print a key's content as it is on the server, or as it was at a version",
		Run: historyCommand("show", "show KEY[@VERSION] [flags]", 1, 1, runShow)})
	register(command{Name: "diff", Summary: "unified diff of a key: the server's latest against the local file, or two versions",
		Run: historyCommand("diff", "diff KEY [V1 [V2]] [flags]", 1, 3, runDiff)})
	register(command{Name: "restore", Summary: "bring back a deleted key, or an older version of a key, for everyone",
		Run: historyCommand("restore", "restore KEY [--version V] [flags]", 1, 1, runRestore)})
}

// historyFlags are the flags of the history commands beyond the common ones.
type historyFlags struct {
	limit   int
	version int64
}

// historyCommand builds the Run of a history command: common flags
// (interspersed with between min and max positional arguments), a session
// and a client, then fn.
func historyCommand(name, synopsis string, minArgs, maxArgs int,
	fn func(ctx context.Context, s *session, c *client.Client, h historyFlags, args []string) error) func(context.Context, *cliEnv, []string) error {
	return func(ctx context.Context, e *cliEnv, args []string) error {
		fs := newFlagSet(name, synopsis, e.Stdout)
		var c commonFlags
		c.register(fs)
		c.registerPersonal(fs, personalUsage)
		var h historyFlags
		switch name {
		case "log":
			fs.IntVar(&h.limit, "limit", 20, "show at most `N` versions (or revisions of KEY)")
		case "restore":
			fs.Int64Var(&h.version, "version", 0, "restore the content KEY had at version `V` (default: a deleted key's last content)")
		case "blame":
			fs.Int64Var(&h.version, "version", 0, "blame KEY as it stood at version `V` (default: its newest revision)")
		}
		pos, err := parseArgs(fs, args, e.Getenv, minArgs, maxArgs)
		if err != nil {
			return helpOK(err)
		}
		c.orRegistered = name != "restore" // the commands that only read
		s, err := newSession(e, name, c)
		if err != nil {
			return err
		}
		cl, err := s.newClient()
		if err != nil {
			return err
		}
		return s.explain(fn(ctx, s, cl, h, pos))
	}
}

// parseArgs parses flags that may come before, between or after the
// positional arguments, then the environment twins; it wants between min
// and max positional arguments.
func parseArgs(fs *flag.FlagSet, args []string, getenv func(string) string, minArgs, maxArgs int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, errUsage("%s: %v", fs.Name(), err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) < minArgs || len(pos) > maxArgs {
		return nil, errUsage("%s: wrong number of arguments (see teammem-agent %s --help)", fs.Name(), fs.Name())
	}
	return pos, applyEnv(fs, getenv)
}

// runLog prints the repository's activity, or one key's revisions.
func runLog(ctx context.Context, s *session, c *client.Client, h historyFlags, args []string) error {
	if h.limit <= 0 {
		return errUsage("log: --limit must be positive")
	}
	if len(args) == 1 {
		return logKey(ctx, s, c, args[0], h.limit)
	}
	items, next, err := agent.Activity(ctx, c, s.slug, h.limit)
	if err != nil {
		return err
	}
	if s.flags.json {
		out := api.Activity{Repo: s.slug, Items: items}
		if next > 0 {
			out.Next = &next
		}
		s.out.object(out)
		return nil
	}
	for _, it := range items {
		fmt.Fprintf(s.e.Stdout, "version %d  %s  %s\n", it.Version, localTime(it.At), whoWrote(it.Author, it.Provenance))
		if d := describeProvenance(it.Provenance); d != "" {
			fmt.Fprintf(s.e.Stdout, "    %s\n", d)
		}
		for _, k := range it.Changed {
			fmt.Fprintf(s.e.Stdout, "    changed  %s%s\n", strconv.Quote(k), restoreNote(it.RestoreOf[k]))
		}
		for _, k := range it.Deleted {
			fmt.Fprintf(s.e.Stdout, "    deleted  %s\n", strconv.Quote(k))
		}
	}
	if next > 0 {
		fmt.Fprintf(s.e.Stdout, "(older versions: --limit %d)\n", h.limit*2)
	}
	return nil
}

// logKey prints the revisions of one key.
func logKey(ctx context.Context, s *session, c *client.Client, key string, limit int) error {
	h, err := c.History(ctx, s.slug, key, client.HistoryOptions{Limit: limit})
	if err != nil {
		return keyError(s, key, err)
	}
	if s.flags.json {
		s.out.object(h)
		return nil
	}
	for _, r := range h.Revisions {
		fmt.Fprintf(s.e.Stdout, "version %d  %-6s  %s  %s  %s  %s%s\n", r.Version, r.Op, localTime(r.At),
			whoWrote(r.Author, r.Provenance), plural(int(r.Size), "byte", "bytes"), shortSum(r.Checksum), restoreNote(r.RestoreOf))
		if d := describeProvenance(r.Provenance); d != "" {
			fmt.Fprintf(s.e.Stdout, "    %s\n", d)
		}
	}
	return nil
}

// restoreNote says which version a change restored ("" when it restored
// none): the server derives it from the key's history.
func restoreNote(of int64) string {
	if of == 0 {
		return ""
	}
	return fmt.Sprintf("  (restore of v%d)", of)
}

// runShow prints KEY's content at a version (default: the latest).
func runShow(ctx context.Context, s *session, c *client.Client, _ historyFlags, args []string) error {
	key, version, err := splitKeyVersion(args[0])
	if err != nil {
		return err
	}
	rev, err := agent.LiveAt(ctx, c, s.slug, key, version)
	if de := (*agent.DeletedError)(nil); errors.As(err, &de) {
		return deletedError(s, de)
	}
	if err != nil {
		return keyError(s, key, err)
	}
	if s.flags.json {
		s.out.object(rev)
		return nil
	}
	fmt.Fprint(s.e.Stdout, rev.Content)
	return nil
}

// deletedError words show's refusal of a deleted key with the commands
// that reach its last content.
func deletedError(s *session, e *agent.DeletedError) error {
	msg := fmt.Sprintf("%s %s was deleted in version %d", s.slug, strconv.Quote(e.Key), e.DeletedIn)
	if e.LastContent == 0 {
		return errors.New(msg)
	}
	var same string // the flags that chose this repository
	if s.flags.repo != "" {
		same += " --repo " + shellWord(s.flags.repo)
	}
	if s.flags.personal {
		same += " --personal"
	}
	return fmt.Errorf("%s; its last content is version %d: `teammem-agent show %s%s` prints it, `teammem-agent restore %s --version %d%s` brings it back",
		msg, e.LastContent, shellWord(fmt.Sprintf("%s@%d", e.Key, e.LastContent)), same, shellWord(e.Key), e.LastContent, same)
}

// shellWord is s as one word of a command line: as it is when no shell
// reads anything into it, else quoted.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/@+,:=-") == "" {
		return s
	}
	return shellQuote(s)
}

// splitKeyVersion splits KEY@VERSION; a key without a numeric @ suffix
// has version 0 (the latest).
func splitKeyVersion(arg string) (string, int64, error) {
	i := strings.LastIndexByte(arg, '@')
	if i < 0 {
		return arg, 0, nil
	}
	v, err := strconv.ParseInt(arg[i+1:], 10, 64)
	if err != nil {
		return arg, 0, nil // an @ that is part of the key
	}
	if v <= 0 {
		return "", 0, errUsage("version %d: versions start at 1", v)
	}
	return arg[:i], v, nil
}

// diffSide is one side of a diff: its label and content.
type diffSide struct {
	label   string
	content string
}

// runDiff prints a unified diff: the server's latest against the local
// file, version V1 against the local file, or V1 against V2.
func runDiff(ctx context.Context, s *session, c *client.Client, _ historyFlags, args []string) error {
	key := args[0]
	var versions []int64
	for _, a := range args[1:] {
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil || v <= 0 {
			return errUsage("diff: version %q is not a positive number", a)
		}
		versions = append(versions, v)
	}
	var from, to diffSide
	var err error
	if len(versions) == 0 {
		from, err = serverSide(ctx, s, c, key, 0)
	} else {
		from, err = serverSide(ctx, s, c, key, versions[0])
	}
	if err != nil {
		return err
	}
	if len(versions) == 2 {
		to, err = serverSide(ctx, s, c, key, versions[1])
	} else {
		to, err = localSide(s, key)
	}
	if err != nil {
		return err
	}
	d := linediff.Unified(from.label, to.label, from.content, to.content)
	if s.flags.json {
		s.out.object(diffJSON{Repo: s.slug, Key: key, From: from.label, To: to.label, Identical: d == "", Diff: d})
		return nil
	}
	if d == "" {
		// Say what was compared: a silent diff reads as a failure.
		fmt.Fprintf(s.e.Stdout, "no difference: %s and %s hold the same text\n", from.label, to.label)
		return nil
	}
	fmt.Fprint(s.e.Stdout, d)
	return nil
}

// diffJSON is diff's --json output.
type diffJSON struct {
	Repo      string `json:"repo"`
	Key       string `json:"key"`
	From      string `json:"from"`
	To        string `json:"to"`
	Identical bool   `json:"identical"`
	Diff      string `json:"diff"`
}

// serverSide is key at version (0: the latest) on the server; a key that
// did not exist or was deleted then is empty.
func serverSide(ctx context.Context, s *session, c *client.Client, key string, version int64) (diffSide, error) {
	rev, err := agent.RevisionAt(ctx, c, s.slug, key, version)
	switch {
	case errors.Is(err, agent.ErrNoSuchVersion), errors.Is(err, client.ErrNotFound):
		if version == 0 {
			return diffSide{label: key + " (not on the server)"}, nil
		}
		return diffSide{label: fmt.Sprintf("%s@%d (absent)", key, version)}, nil
	case err != nil:
		return diffSide{}, err
	case rev.Op == api.OpDelete:
		return diffSide{label: fmt.Sprintf("%s@%d (deleted)", key, rev.Version)}, nil
	}
	return diffSide{label: fmt.Sprintf("%s@%d", key, rev.Version), content: rev.Content}, nil
}

// localSide is the file of key in the team folder.
func localSide(s *session, key string) (diffSide, error) {
	content, ok, err := agent.ReadLocal(s.dir, key)
	if err != nil {
		return diffSide{}, fmt.Errorf("read the local %s: %w", strconv.Quote(key), err)
	}
	if !ok {
		return diffSide{label: key + " (no local file)"}, nil
	}
	return diffSide{label: key + " (local)", content: content}, nil
}

// runRestore brings back a deleted key or an older version.
func runRestore(ctx context.Context, s *session, c *client.Client, h historyFlags, args []string) error {
	key := args[0]
	if h.version < 0 {
		return errUsage("restore: --version must be positive")
	}
	r, err := agent.Restore(ctx, c, s.slug, key, h.version)
	if err != nil {
		return keyError(s, key, err)
	}
	if s.flags.json {
		s.out.object(restoreJSON{Repo: s.slug, Key: key, FromVersion: r.FromVersion, Version: r.Version,
			Checksum: r.Checksum, Unchanged: r.Unchanged})
		return nil
	}
	if r.Unchanged {
		fmt.Fprintf(s.e.Stdout, "%s already holds the content of version %d; nothing to do\n", strconv.Quote(key), r.FromVersion)
		return nil
	}
	fmt.Fprintf(s.e.Stdout, "restored %s to its content of version %d: version %d of %s, which `teammem-agent log` shows as the restore of v%d; every agent pulls it like any edit\n",
		strconv.Quote(key), r.FromVersion, r.Version, s.slug, r.FromVersion)
	return nil
}

// restoreJSON is restore's --json output.
type restoreJSON struct {
	Repo        string `json:"repo"`
	Key         string `json:"key"`
	FromVersion int64  `json:"fromVersion"`
	Version     int64  `json:"version"`
	Checksum    string `json:"checksum"`
	Unchanged   bool   `json:"unchanged"`
}

// keyError words a key that has no history on the server.
func keyError(s *session, key string, err error) error {
	if errors.Is(err, client.ErrNotFound) {
		return fmt.Errorf("%s has no history in %s on %s", strconv.Quote(key), s.slug, s.server)
	}
	return err
}

// localTime formats a server timestamp in the local time zone, to the
// second.
func localTime(at string) string {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return at
	}
	return t.Local().Format("2006-01-02 15:04:05 MST")
}
