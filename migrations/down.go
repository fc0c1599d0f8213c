package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// ErrTooManySteps is returned when a roll back asks for more migrations than
// are applied.
var ErrTooManySteps = errors.New("more migrations than are applied")

// Step is one migration and the SQL that rolls it back.
type Step struct {
	Version uint
	Name    string // the file name without its version and .down.sql
	DownSQL string
}

// steps lists every migration in fsys, oldest first.
func steps(fsys fs.FS) ([]Step, error) {
	names, err := fs.Glob(fsys, "*.down.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var out []Step
	for _, name := range names {
		num, rest, _ := strings.Cut(name, "_")
		v, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parse migration name %q: %w", name, err)
		}
		sqlText, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		out = append(out, Step{Version: uint(v), Name: strings.TrimSuffix(rest, ".down.sql"), DownSQL: string(sqlText)})
	}
	slices.SortFunc(out, func(a, b Step) int { return int(a.Version) - int(b.Version) })
	return out, nil
}

// DownPlan returns the migrations that rolling back n of them at version
// current undoes, newest first, and the version it leaves (0: none). It
// returns an error wrapping ErrTooManySteps when fewer than n are applied.
func DownPlan(fsys fs.FS, current uint, n int) ([]Step, uint, error) {
	if n <= 0 {
		return nil, 0, fmt.Errorf("migrate down: give the number of migrations to roll back (> 0), not %d", n)
	}
	all, err := steps(fsys)
	if err != nil {
		return nil, 0, err
	}
	var applied []Step
	for _, s := range all {
		if s.Version <= current {
			applied = append(applied, s)
		}
	}
	if n > len(applied) {
		return nil, 0, fmt.Errorf("migrate down %d: %w: only %d applied (schema version %d); nothing was changed", n, ErrTooManySteps, len(applied), current)
	}
	undo := slices.Clone(applied[len(applied)-n:])
	slices.Reverse(undo)
	var target uint
	if k := len(applied) - n; k > 0 {
		target = applied[k-1].Version
	}
	return undo, target, nil
}

// RollBack rolls back n migrations of fsys on db in one transaction (both
// PostgreSQL and SQLite roll back DDL): the down scripts and the new version
// in golang-migrate's schema_migrations table commit together or not at
// all. It refuses a dirty schema and n larger than the number applied,
// changing nothing, and returns the version it leaves.
func RollBack(ctx context.Context, db *sql.DB, fsys fs.FS, n int) (uint, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("migrate down: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	current, dirty, err := readVersion(ctx, tx)
	if err != nil {
		return 0, err
	}
	if dirty {
		return 0, fmt.Errorf("migrate down: %w: migration %d failed halfway; fix it by hand first", ErrSchemaMismatch, current)
	}
	plan, target, err := DownPlan(fsys, current, n)
	if err != nil {
		return 0, err
	}
	for _, s := range plan {
		if _, err := tx.ExecContext(ctx, s.DownSQL); err != nil {
			return 0, fmt.Errorf("migrate down: roll back %d_%s: %w; nothing was changed", s.Version, s.Name, err)
		}
	}
	set := "DELETE FROM schema_migrations"
	if target > 0 {
		set += fmt.Sprintf("; INSERT INTO schema_migrations (version, dirty) VALUES (%d, false)", target)
	}
	if _, err := tx.ExecContext(ctx, set); err != nil {
		return 0, fmt.Errorf("migrate down: record version %d: %w", target, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("migrate down: commit: %w", err)
	}
	return target, nil
}

// readVersion reads golang-migrate's version row (none: version 0).
func readVersion(ctx context.Context, tx *sql.Tx) (uint, bool, error) {
	var v int64
	var dirty bool
	err := tx.QueryRowContext(ctx, `SELECT version, dirty FROM schema_migrations LIMIT 1`).Scan(&v, &dirty)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("read schema version: %w", err)
	case v < 0:
		return 0, dirty, nil
	}
	return uint(v), dirty, nil
}
