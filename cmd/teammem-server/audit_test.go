package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
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
