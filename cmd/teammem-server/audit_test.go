package main

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
)

// TestAuditVerifyAndExport: the first start's admin token and a token
// created by the operator are in the server's chain; audit export prints
// them as JSON lines (only the later ones with --since); audit verify
// passes, and fails naming the entry once the file is edited by hand.
func TestAuditVerifyAndExport(t *testing.T) {
	dir := t.TempDir()
	_, _, stop := startServerStop(t, dir)
	_, id := createToken(t, dir, "ci")
	stop()

	code, out, errs := cli(t, "audit", "export", "--data-dir", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("audit export: exit %d, %q %q; want 2 lines", code, out, errs)
	}
	var last struct {
		Chain  string
		Seq    int64
		Record struct {
			Action string
			By     struct{ Subject, Surface string }
			Detail map[string]string
		}
	}
	if err := json.Unmarshal([]byte(lines[1]), &last); err != nil || last.Seq != 2 || last.Record.Action != "token.create" ||
		last.Record.Detail["token"] != id || !strings.HasPrefix(last.Record.By.Subject, "operator:") || last.Record.By.Surface != "cli" {
		t.Errorf("export's last line %s (%v); want token %s created by the operator through the cli", lines[1], err, id)
	}
	if code, out, _ := cli(t, "audit", "export", "--data-dir", dir, "--since", "2999-01-01"); code != 0 || out != "" {
		t.Errorf("export --since the future: exit %d, %q; want nothing", code, out)
	}
	if code, _, errs := cli(t, "audit", "export", "--data-dir", dir, "--since", "yesterday"); code != 2 || !strings.Contains(errs, "not a time") {
		t.Errorf("export --since yesterday: exit %d, %q; want a usage error", code, errs)
	}

	code, out, errs = cli(t, "audit", "verify", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "the audit log verifies") {
		t.Fatalf("audit verify: exit %d, %q %q", code, out, errs)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, embeddedDBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE audit_log SET body = CAST(replace(CAST(body AS TEXT), 'acme/*:write', '**:admin') AS BLOB) WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cli(t, "audit", "verify", "--data-dir", dir)
	if code != 1 || !strings.Contains(out, "chain (server), entry 2: its hash is not its content's") || !strings.Contains(errs, "does not verify") {
		t.Errorf("audit verify of an edited log: exit %d, %q %q; want exit 1 naming entry 2", code, out, errs)
	}
}

// TestAuditServed: pulls of a subject are saved when the server stops;
// audit served names the version the subject held after each and the
// index lines of MEMORY.md at that version; before any pull, none.
func TestAuditServed(t *testing.T) {
	dir := t.TempDir()
	base, _, stop := startServerStop(t, dir)
	admin := adminToken(t, dir)
	tok, _ := createToken(t, dir, "ana")
	put := func(body string) {
		if code, b := request(t, http.MethodPut, base+api.PathTeamMemory+"?repo=acme/api", admin, body); code != 200 {
			t.Fatalf("PUT = %d %s", code, b)
		}
	}
	pull := func() {
		if code, b := request(t, http.MethodGet, base+api.PathTeamMemory+"?repo=acme/api", tok, ""); code != 200 {
			t.Fatalf("GET = %d %s", code, b)
		}
	}
	before := time.Now().UTC()
	put(`{"entries":{"MEMORY.md":"- [Deploys](deploys.md) — runbook\n","deploys.md":"d"}}`)
	pull()
	held1 := time.Now().UTC()
	time.Sleep(10 * time.Millisecond) // the next pull's time is after held1's
	put(`{"entries":{"MEMORY.md":"- [Deploys](deploys.md) — runbook\n- [Tests](tests.md)\n","tests.md":"t"}}`)
	pull()
	pull()
	stop()

	served := func(at time.Time) string {
		t.Helper()
		code, out, errs := cli(t, "audit", "served", "--data-dir", dir, "--subject", "ana", "--repo", "acme/api", "--at", at.Format(time.RFC3339Nano))
		if code != 0 {
			t.Fatalf("audit served: exit %d %q", code, errs)
		}
		return out
	}
	if out := served(held1); !strings.Contains(out, "ana held acme/api version 1 at") || !strings.Contains(out, "1 index lines\n    - [Deploys](deploys.md) — runbook\n") {
		t.Errorf("audit served after the first pull:\n%s", out)
	}
	if out := served(time.Now()); !strings.Contains(out, "version 2") || !strings.Contains(out, "(2 times in that hour") || !strings.Contains(out, "    - [Tests](tests.md)\n") {
		t.Errorf("audit served after the second pulls:\n%s", out)
	}
	if out := served(before); !strings.Contains(out, "no pull of acme/api by ana is recorded") {
		t.Errorf("audit served before any pull:\n%s", out)
	}
}
