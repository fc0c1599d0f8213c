package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/teammem/teammem"

// deps returns the packages pkg depends on (transitively), via go list.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

func TestImportRules(t *testing.T) {
	rules := []struct {
		pkg       string
		forbidden []string // import path prefixes
		ownAllow  []string // our packages allowed (besides pkg itself); nil = any
	}{
		{pkg: "api", ownAllow: []string{}},
		{pkg: "memcore", ownAllow: []string{"memcore", "internal/atomicfile", "internal/filelock"}},
		{pkg: "memcore/secrets", ownAllow: []string{}},
		{pkg: "memcore/protocol", ownAllow: []string{}},
		{pkg: "internal/linediff", ownAllow: []string{}},
		{pkg: "client", ownAllow: []string{"api"}},
		{pkg: "server", forbidden: []string{"github.com/jackc/", "modernc.org/", "github.com/go-chi/", "github.com/golang-jwt/", "github.com/prometheus/", module + "/api"},
			ownAllow: []string{"memcore/protocol", "memcore/secrets", "internal/linediff", "internal/sealbox"}},
		{pkg: "server/sqlite", forbidden: []string{"github.com/jackc/", "github.com/go-chi/"}},
		{pkg: "server/postgres", forbidden: []string{"modernc.org/", "github.com/go-chi/"}},
		// The surfaces link neither each other nor each other's
		// technology: no MCP SDK or Markdown in the REST API, and so on.
		{pkg: "server/httpapi", forbidden: []string{"github.com/jackc/", "modernc.org/", "github.com/modelcontextprotocol/", "github.com/yuin/goldmark",
			module + "/server/webui", module + "/server/mcp", module + "/server/router"}},
		{pkg: "server/webui", forbidden: []string{"github.com/jackc/", "modernc.org/", "github.com/modelcontextprotocol/",
			module + "/server/httpapi", module + "/server/mcp", module + "/server/router"}},
		{pkg: "server/httpkit", ownAllow: []string{"api", "server", "server/auth", "internal/atomicfile", "internal/linediff", "internal/sealbox", "memcore/protocol", "memcore/secrets"}},
		{pkg: "mcptools", ownAllow: []string{"memcore/protocol", "memcore/secrets"}},
		// chi reaches /mcp through httpkit only (TestTechnologyInOneLeaf).
		{pkg: "server/mcp", forbidden: []string{"github.com/jackc/", "modernc.org/", "github.com/yuin/goldmark"},
			ownAllow: []string{"api", "server", "server/auth", "internal/atomicfile", "internal/linediff", "internal/sealbox", "server/httpkit", "mcptools", "memcore/protocol", "memcore/secrets"}},
		{pkg: "client/assistants", ownAllow: []string{}},
		{pkg: "client/mcpinstall", ownAllow: []string{"client/assistants", "internal/atomicfile", "internal/linediff"}},
		{pkg: "client/mcprest", ownAllow: []string{"api", "client", "mcptools", "memcore/protocol", "memcore/secrets"}},
	}
	for _, r := range rules {
		t.Run(r.pkg, func(t *testing.T) {
			for _, d := range deps(t, r.pkg) {
				for _, f := range r.forbidden {
					if strings.HasPrefix(d, f) {
						t.Errorf("%s imports %s", r.pkg, d)
					}
				}
				if r.ownAllow == nil || !strings.HasPrefix(d, module+"/") || d == module+"/"+r.pkg || strings.HasPrefix(d, module+"/"+r.pkg+"/") {
					continue
				}
				own := strings.TrimPrefix(d, module+"/")
				ok := false
				for _, a := range r.ownAllow {
					if own == a || strings.HasPrefix(own, a+"/") {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s imports our package %s", r.pkg, own)
				}
			}
		})
	}
}

// TestProtocolLeaf checks that memcore/protocol, all the server needs of
// memcore besides the secret scanner, links the standard library and
// golang.org/x/text only, and that the server binary links no other part of
// memcore (so none of its Markdown, YAML and gitignore machinery; the web
// UI renders Markdown with goldmark on its own account).
func TestProtocolLeaf(t *testing.T) {
	for _, d := range deps(t, "memcore/protocol") {
		first, _, _ := strings.Cut(d, "/")
		if strings.Contains(first, ".") && d != module+"/memcore/protocol" && !strings.HasPrefix(d, "golang.org/x/text/") {
			t.Errorf("memcore/protocol imports %s; only the standard library and golang.org/x/text may be", d)
		}
	}
	machinery := []string{"gopkg.in/yaml", "go.yaml.in/", "github.com/go-git/", "github.com/bmatcuk/doublestar"}
	for _, d := range deps(t, "cmd/teammem-server") {
		if own, ok := strings.CutPrefix(d, module+"/memcore"); ok && own != "/protocol" && own != "/secrets" {
			t.Errorf("teammem-server links %s; it may use memcore/protocol and memcore/secrets only", d)
		}
		for _, m := range machinery {
			if strings.HasPrefix(d, m) {
				t.Errorf("teammem-server links %s", d)
			}
		}
	}
}

// TestTechnologyInOneLeaf checks that each technology is imported directly by
// exactly the packages named for it.
func TestTechnologyInOneLeaf(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	// Every third-party module of go.mod but the standard extensions
	// (golang.org/x/text, x/sys) has its owners here, cmd/ and internal/
	// included. goldmark and go-git are leaves of memcore as well as of the
	// packages named for them: memcore parses Markdown (include scan,
	// frontmatter) and reads .git (the project root) itself.
	owners := map[string][]string{
		"github.com/jackc/pgx":                   {"server/postgres", "migrations", "testkit/pgtest"},
		"modernc.org/sqlite":                     {"server/sqlite"},
		"github.com/golang-migrate/migrate":      {"migrations", "server/postgres", "server/sqlite"},
		"github.com/go-chi/chi":                  {"server/router", "server/httpapi", "server/httpkit", "server/webui", "server/oauth"},
		"github.com/go-json-experiment/json":     {"server/httpapi"},
		"golang.org/x/time":                      {"server/httpkit"},
		"github.com/microcosm-cc/bluemonday":     {"server/webui"},
		"github.com/golang-jwt/jwt":              {"server/auth"},
		"github.com/prometheus/":                 {"server/metrics"},
		"github.com/modelcontextprotocol/go-sdk": {"mcptools", "server/mcp"},
		"github.com/google/jsonschema-go":        {"mcptools"},
		"github.com/fsnotify/fsnotify":           {"client/watch"},
		"github.com/go-git/":                     {"client/gitremote", "client/refcheck", "memcore"},
		"github.com/yuin/goldmark":               {"memcore", "server/webui"},
		"github.com/BurntSushi/toml":             {"client/userconfig", "client/mcpinstall"},
		"gopkg.in/yaml":                          {"memcore"},
		"github.com/bmatcuk/doublestar":          {"memcore"},
		"github.com/getkin/kin-openapi":          {"testkit/openapitest"},
		"golang.org/x/net":                       {"cmd/teammem-server"},
		"golang.org/x/term":                      {"cmd/teammem-agent"},
		"github.com/kljensen/snowball":           {"server/internal/searchtext"},
		"github.com/coreos/go-oidc":              {"server/signin"},
		"golang.org/x/oauth2":                    {"server/signin"},
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module+"/")
		for _, imp := range fields[1:] {
			for tech, allowed := range owners {
				if !strings.HasPrefix(imp, tech) {
					continue
				}
				ok := false
				for _, a := range allowed {
					if pkg == a || strings.HasPrefix(pkg, a+"/") {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s imports %s; only %v may", pkg, imp, allowed)
				}
			}
		}
	}
}
