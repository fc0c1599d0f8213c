package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/teammem/teammem/migrations"
)

// TestMigrateDownSafety: down refuses without --force (printing what it
// would drop), refuses more steps than are applied, and with --force rolls
// back.
func TestMigrateDownSafety(t *testing.T) {
	dir := t.TempDir()
	latest, _ := migrations.Latest(migrations.SQLite)
	migrate := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"migrate"}, append(args, "--data-dir", dir)...), env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }})
		code := exitCode(&errb, err)
		return code, out.String() + errb.String()
	}
	version := func() string {
		_, out := migrate("version")
		return strings.TrimSpace(out)
	}
	if code, out := migrate("up"); code != 0 {
		t.Fatalf("migrate up: %d %s", code, out)
	}
	want := fmt.Sprintf("schema version %d", latest)

	// Two steps: the newest migration may drop nothing (a re-index).
	code, out := migrate("down", "2")
	if code != 2 || !strings.Contains(out, "--force") || !strings.Contains(out, "DROP") {
		t.Errorf("down 2 without --force = %d %q; want exit 2 naming --force and printing the DROPs", code, out)
	}
	if v := version(); v != want {
		t.Fatalf("after a refused down: %q, want %q", v, want)
	}

	code, out = migrate("down", fmt.Sprint(latest+1), "--force")
	if code != 1 || !strings.Contains(out, "applied") {
		t.Errorf("down %d --force = %d %q; want exit 1 saying how many are applied", latest+1, code, out)
	}
	if v := version(); v != want {
		t.Fatalf("after a refused down: %q, want %q", v, want)
	}

	code, out = migrate("down", fmt.Sprint(latest), "--force")
	if code != 0 || !strings.Contains(out, "every table") || !strings.Contains(out, "schema version 0") {
		t.Errorf("down %d --force = %d %q", latest, code, out)
	}
	if code, out := migrate("up"); code != 0 || !strings.Contains(out, want) {
		t.Errorf("up after down = %d %q", code, out)
	}
}
