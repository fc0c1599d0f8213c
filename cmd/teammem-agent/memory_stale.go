package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/teammem/teammem/client/refcheck"
	"github.com/teammem/teammem/memcore"
)

// staleProblems checks the topics of the auto memory folder (the team
// folder inside it included) against the checkout's HEAD, and with
// --stale-after their age. Outside a git checkout there is nothing to
// check references against.
func staleProblems(ctx context.Context, r *memoryRun) ([]memcore.LintProblem, error) {
	dir := r.layout.AutoMemDir
	var out []memcore.LintProblem
	rep, err := refcheck.CheckFolder(ctx, r.layout.ProjectRoot, dir)
	switch {
	case errors.Is(err, refcheck.ErrNotRepo):
	case err != nil: // a damaged repository: say so, and lint the rest
		out = append(out, memcore.LintProblem{Path: r.layout.ProjectRoot, Line: 1, Rule: "unreadable",
			Message: "cannot check the memories' code references: " + err.Error()})
	default:
		out = append(out, refcheck.LintProblems(dir, rep)...)
	}
	ages, err := memcore.StaleTopics(dir, r.flags.staleAfter, time.Now())
	if err != nil {
		return nil, err
	}
	return append(out, ages...), nil
}

// memoryConfirm records that a topic was checked: verified: today in its
// frontmatter. The key is looked up in the team folder, then in the auto
// memory folder.
func memoryConfirm(_ context.Context, r *memoryRun, args []string) error {
	key := args[0]
	dir := r.layout.TeamDir
	if _, err := memcore.SafeRead(dir, key); err != nil {
		dir = r.layout.AutoMemDir
	}
	today := time.Now().UTC()
	if err := memcore.ConfirmTopic(dir, key, today); err != nil {
		return fmt.Errorf("memory confirm: %w", err)
	}
	if r.flags.json {
		return r.emitJSON(map[string]string{"path": filepath.Join(dir, filepath.FromSlash(key)), memcore.VerifiedKey: today.Format(time.DateOnly)})
	}
	fmt.Fprintf(r.e.Stdout, "confirmed %s (verified: %s)\n", filepath.Join(dir, filepath.FromSlash(key)), today.Format(time.DateOnly))
	return nil
}
