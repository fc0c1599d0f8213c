package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// room is one package of the module (or, with a trailing "/...", a package
// and everything below it) and the packages of ours it may import directly,
// each a path or a "/..." pattern. Every package of the module must be in
// exactly one room: a new package is a new line here, which is where the
// layout is decided.
type room struct {
	pkg     string
	imports []string
}

// layout is the house (CONTRIBUTING.md shows it as a tree). Reading down:
// the wire and the memory core import nothing of ours but internal
// primitives; the client side imports the wire and the core; the server's
// domain imports the core's protocol and scanner only, its technologies the
// domain; cmd wires; test kits may import what they test.
var layout = []room{
	{"api", nil},
	{"memcore/protocol", nil},
	{"memcore/protocol/protocoltest", []string{"memcore/protocol"}},
	{"memcore/secrets", nil},
	{"memcore/secrets/secretstest", nil},
	{"memcore", with(prim, "memcore/protocol")},
	{"memcore/session", with(prim, "memcore", "memcore/protocol")},
	{"memcore/refs", []string{"memcore"}},
	{"memcore/internal/memtest", nil},
	{"migrations", nil},
	// Both sides' MCP tools, over a Backend each side implements.
	{"mcptools", []string{"memcore/protocol", "memcore/secrets"}},

	{"client", []string{"api"}},
	{"client/watch", []string{"memcore/protocol"}},
	{"client/gitremote", []string{"memcore/protocol"}},
	{"client/refcheck", []string{"client/gitremote", "memcore", "memcore/refs"}},
	{"client/autostart", prim},
	// The agent's browser sign-in (RFC 8252 loopback, PKCE) and the renewal of its tokens.
	{"client/signin", prim},
	{"client/userconfig", prim},
	// The one table of assistants (TestOneTableOfAssistants): the block
	// and MCP install read it.
	{"client/assistants", nil},
	{"client/teamblock", with(prim, "client/assistants", "client/gitremote", "memcore", "memcore/protocol")},
	{"client/mcpinstall", with(prim, "client/assistants")},
	{"client/localsearch", []string{"memcore/protocol"}},
	{"client/mcprest", []string{"api", "client", "client/localsearch", "mcptools"}},
	{"client/agent", with(prim, "api", "client", "client/watch", "client/assistants", "client/teamblock", "client/gitremote", "client/refcheck",
		"memcore", "memcore/protocol", "memcore/secrets", "memcore/session")},

	// The server's domain knows no wire and no driver; its technologies
	// know the domain, never each other (but for the fan-out's metrics).
	{"server", []string{"memcore/protocol", "memcore/secrets", "server/internal/searchtext", "internal/linediff", "internal/sealbox"}},
	{"server/internal/searchtext", []string{"memcore/protocol"}},
	{"server/internal/writeplan", []string{"server", "memcore/protocol"}},
	{"server/auth", with(prim, "server", "memcore/protocol")},
	{"server/events", []string{"server", "memcore/protocol"}},
	// Who wrote each line: a key's revisions diffed one to the next.
	{"server/blame", []string{"server", "internal/linediff"}},
	// The audit log's checkpoints, verification, export and served records.
	{"server/audit", []string{"server", "memcore/protocol"}},
	// Upkeep: a repository's findings and the tidy plan, read through the
	// Service.
	{"server/health", []string{"server", "memcore/protocol"}},
	{"server/metrics", []string{"server", "server/events"}},
	{"server/sqlite", with(prim, "server", "server/internal/...", "migrations", "memcore/protocol")},
	{"server/postgres", with(prim, "server", "server/internal/...", "migrations", "memcore/protocol")},
	{"server/storetest", []string{"server", "server/audit", "server/internal/searchtext", "migrations", "memcore/protocol", "memcore/protocol/protocoltest", "memcore/secrets"}},
	{"server/connlimit", nil},
	// The HTTP surfaces (REST+SSE, the web UI, /mcp) share httpkit's
	// middleware and never import each other; the router alone mounts
	// them side by side (TestOneFrontDoor).
	{"server/httpkit", []string{"api", "server", "server/auth"}},
	{"server/httpapi", with(prim, "api", "server", "server/httpkit", "server/events", "server/metrics", "server/blame", "server/health", "memcore/protocol", "memcore/secrets")},
	{"server/webui", with(prim, "server", "server/httpkit", "server/metrics", "server/auth", "server/blame", "server/health", "memcore/protocol")},
	{"server/mcp", []string{"server", "server/httpkit", "server/health", "mcptools"}},
	// The OAuth 2.1 authorization server of the API and /mcp; its consent
	// page is the web UI's, through server.Authorizer.
	{"server/oauth", []string{"server", "server/auth", "server/httpkit"}},
	// People's sign-in with the organisation's OpenID Connect provider.
	{"server/signin", []string{"server"}},
	{"server/router", []string{"api", "server", "server/auth", "server/events", "server/httpkit", "server/metrics", "server/httpapi", "server/webui", "server/mcp", "server/oauth", "server/health"}},

	// Wiring.
	{"cmd/teammem-server", with(prim, "api", "server/...", "migrations", "memcore/protocol")},
	{"cmd/teammem-agent", with(prim, "api", "client/...", "memcore/...", "mcptools")},
	{"cmd/teammem-load", with(prim, "testkit/loadgen")},

	// Primitives, the ground floor: nothing of ours (TestPrimitivesGround).
	{"internal/atomicfile", nil},
	{"internal/filelock", nil},
	{"internal/linediff", nil},
	{"internal/buildinfo", nil},
	{"internal/cliflags", nil},
	{"internal/earlysignal", nil},
	{"internal/sealbox", nil},
	// The load generator and the test kits live apart from the primitives
	// (testkit/, above server/ and client/): they import what they drive;
	// only their non-test code is held here.
	{"testkit/loadgen/...", []string{"api", "client", "memcore/protocol", "testkit/loadgen"}},
	{"testkit/archtest", nil},
	{"testkit/pgtest", nil},
	{"testkit/proctest", nil},
	{"testkit/gittest", nil},
	{"testkit/realclient", []string{"testkit/proctest"}},
	{"testkit/openapitest", []string{"api"}},
	{"testkit/servertest", []string{"api", "server", "server/...", "testkit/openapitest"}},
	{"testkit/doctest", nil},
	{"testkit/deploytest", nil},
	{"e2e", nil},
}

// prim are the small primitives any package above the leaves may use.
var prim = []string{"internal/atomicfile", "internal/filelock", "internal/linediff", "internal/buildinfo", "internal/cliflags", "internal/earlysignal", "internal/sealbox"}

// with is prim and more.
func with(base []string, more ...string) []string { return append(slices.Clone(base), more...) }

// ours lists every package of the module with its direct (non-test)
// imports of our own packages.
func ours(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module+"/")
		pkgs[pkg] = []string{}
		for _, imp := range fields[1:] {
			if own, ok := strings.CutPrefix(imp, module+"/"); ok {
				pkgs[pkg] = append(pkgs[pkg], own)
			}
		}
	}
	return pkgs
}

// matches reports whether pkg is pattern, or below it for "x/...".
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// TestLayout checks that every package of the module is in exactly one room
// of the layout, and imports only the packages of ours its room allows.
func TestLayout(t *testing.T) {
	for pkg, imports := range ours(t) {
		var in []room
		for _, r := range layout {
			if matches(r.pkg, pkg) {
				in = append(in, r)
			}
		}
		if len(in) != 1 {
			t.Errorf("%s is in %d rooms of the layout; want exactly one (add it to layout in testkit/archtest and to CONTRIBUTING.md's tree)", pkg, len(in))
			continue
		}
		for _, imp := range imports {
			if matches(in[0].pkg, imp) || slices.ContainsFunc(in[0].imports, func(p string) bool { return matches(p, imp) }) {
				continue
			}
			t.Errorf("%s imports %s; its room allows %v", pkg, imp, in[0].imports)
		}
	}
}

// TestPrimitivesGround checks that internal/ holds only ground-floor
// primitives: no package under it imports a package of ours outside it, so
// every arrow from internal/ points down (test kits, which import the server
// and the client, live in testkit/).
func TestPrimitivesGround(t *testing.T) {
	for pkg, imports := range ours(t) {
		if !strings.HasPrefix(pkg, "internal/") {
			continue
		}
		for _, imp := range imports {
			if !strings.HasPrefix(imp, "internal/") {
				t.Errorf("%s imports %s: internal/ is for primitives that import nothing of ours; a kit that imports the product belongs in testkit/", pkg, imp)
			}
		}
	}
}

// surfaces are the HTTP surfaces of the server, each mounted by the router
// beside the others.
var surfaces = []string{"server/httpapi", "server/webui", "server/mcp", "server/oauth"}

// frontDoor is the one package that composes the surfaces.
const frontDoor = "server/router"

// TestOneFrontDoor checks that exactly one package composes the HTTP
// surfaces: the router imports all of them, no surface imports another,
// and no other package imports more than one (cmd and the test kits go
// through the router).
func TestOneFrontDoor(t *testing.T) {
	pkgs := ours(t)
	if _, ok := pkgs[frontDoor]; !ok {
		t.Fatalf("%s is missing", frontDoor)
	}
	for pkg, imports := range pkgs {
		var got []string
		for _, s := range surfaces {
			if slices.Contains(imports, s) {
				got = append(got, s)
			}
		}
		switch {
		case pkg == frontDoor && len(got) != len(surfaces):
			t.Errorf("%s imports %v of the surfaces %v; it mounts them all", pkg, got, surfaces)
		case slices.Contains(surfaces, pkg) && len(got) > 0:
			t.Errorf("%s imports %v: a surface imports no other; %s mounts them side by side", pkg, got, frontDoor)
		case pkg != frontDoor && len(got) > 1:
			t.Errorf("%s imports %v: only %s composes the surfaces", pkg, got, frontDoor)
		}
	}
}
