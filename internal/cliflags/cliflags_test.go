package cliflags

import (
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplyEnv(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	dir := fs.String("data-dir", "default", "")
	org := fs.String("org", "default", "")
	n := fs.Int("max-entries", 1, "")
	var grants List
	fs.Var(&grants, "grant", "")
	if err := fs.Parse([]string{"--org", "from-flag"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TEAMMEM_DATA_DIR": "/d", "TEAMMEM_ORG": "from-env", "TEAMMEM_MAX_ENTRIES": "7", "TEAMMEM_GRANT": "a/*:read, b/*:write"}
	if err := ApplyEnv(fs, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if *dir != "/d" || *org != "from-flag" || *n != 7 || !cmp.Equal([]string(grants), []string{"a/*:read", "b/*:write"}) {
		t.Errorf("dir %q org %q n %d grants %q", *dir, *org, *n, grants)
	}
	env["TEAMMEM_MAX_ENTRIES"] = "many"
	fs2 := flag.NewFlagSet("y", flag.ContinueOnError)
	fs2.Int("max-entries", 1, "")
	if err := ApplyEnv(fs2, func(k string) string { return env[k] }); err == nil {
		t.Error("a malformed environment value was accepted")
	}
	if err := ApplyEnv(fs2, nil); err != nil {
		t.Error(err)
	}
	if got := EnvName("max-entry-bytes"); got != "TEAMMEM_MAX_ENTRY_BYTES" {
		t.Errorf("EnvName = %s", got)
	}
}
