//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/realclient"
)

// mcpSDK is the official MCP TypeScript SDK whose OAuth client the test runs.
const mcpSDK = "@modelcontextprotocol/sdk@1.32.2"

// TestMCPSDKOAuth: the MCP TypeScript SDK's own OAuth client signs in to
// the real server with nothing but its URL, twice: registered dynamically,
// then identified by a client ID metadata document. A browser signed in to
// the web UI consents; the client calls tools, refreshes its token (which
// rotates), finds its /mcp token refused by the API, and after the person
// ends the session on "Your sessions" finds its refresh token refused.
func TestMCPSDKOAuth(t *testing.T) {
	prefix, err := realclient.NPMInstall(context.Background(), mcpSDK)
	prefix = realclient.ForTest(t, prefix, err)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	// The client's metadata document, on an https host the server trusts
	// through SSL_CERT_FILE.
	docs := map[string][]byte{}
	host := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(docs[r.URL.Path])
	}))
	defer host.Close()
	certFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: host.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	srv := &serverProc{dataDir: dataDir}
	srv.proc = startProcWith(t, func(c *exec.Cmd) { c.Env = append(c.Env, "SSL_CERT_FILE="+certFile) }, serverBin,
		"serve", "--data-dir", dataDir, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--revocation-refresh", "100ms",
		"--oauth-private-client-metadata")
	proctest.WaitFor(t, "the server to listen", func() bool {
		if m := listenRE.FindStringSubmatch(srv.stderr.String()); m != nil {
			srv.addr = m[1]
			return true
		}
		return srv.cmd.ProcessState != nil
	})
	token := (&authServer{serverProc: srv}).token(t, "ann", "acme/*:write")
	b := &tab{t: t, ctx: newBrowser(t), base: srv.url()}
	b.signIn(token)

	// The script runs beside the SDK's node_modules, so its imports resolve.
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "mcp-oauth-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(prefix, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	var transcript []string
	for _, mode := range []string{"dcr", "cimd"} {
		port := freePort(t)
		docURL := host.URL + "/sdk-client.json"
		docs["/sdk-client.json"], _ = json.Marshal(map[string]any{"client_id": docURL, "client_name": "SDK e2e client (metadata document)",
			"redirect_uris": []string{fmt.Sprintf("http://127.0.0.1:%d/callback", port)}, "token_endpoint_auth_method": "none"})
		lines := runSDKClient(t, b, node, dir, srv.url(), port, mode, docURL)
		transcript = append(transcript, "== "+mode)
		transcript = append(transcript, lines...)
		for _, want := range []string{
			"UNAUTHORIZED",
			"CALLBACK state=matches iss=" + srv.url() + " code=yes",
			"TOKENS expires_in=600 refresh_token=yes",
			"CONNECTED teammem",
			"CALL write_memory ok",
			"API with the /mcp token 401",
			"REFRESH AUTHORIZED rotated=true",
			"CALL read_memory after refresh ok",
			"REVOKED-REFRESH refused InvalidGrantError",
			"MCP with the revoked session's access token 401",
		} {
			if !containsPrefix(lines, want) {
				t.Errorf("%s: no line %q in:\n%s", mode, want, strings.Join(lines, "\n"))
			}
		}
		wantReg := map[string]string{"dcr": "REGISTERED dynamic", "cimd": "REGISTERED metadata-document"}[mode]
		if mode == "dcr" && !containsPrefix(lines, wantReg) {
			t.Errorf("%s: no line %q", mode, wantReg)
		}
	}
	out := filepath.Join(screenshotDir(t), "..", "oauth-sdk-transcript.txt")
	os.WriteFile(out, []byte(strings.Join(transcript, "\n")+"\n"), 0o644)
	t.Logf("SDK transcript (%s):\n%s", out, strings.Join(transcript, "\n"))
}

// runSDKClient runs the SDK's client once, consenting in the browser tab
// when it asks and ending its session when it is ready, and returns its
// lines.
func runSDKClient(t *testing.T, b *tab, node, dir, server string, port int, mode, docURL string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := proctest.Command(t, node, "client.mjs", server, fmt.Sprint(port), mode, docURL)
	cmd.Dir, cmd.Env = dir, cleanEnv()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && ctx.Err() == nil {
		line := sc.Text()
		lines = append(lines, redactLine(line))
		switch {
		case strings.HasPrefix(line, "AUTHORIZE "):
			consentInBrowser(t, b, strings.TrimPrefix(line, "AUTHORIZE "), mode)
		case line == "READY-TO-REVOKE":
			if st := b.open("/ui/sessions"); st != 200 {
				t.Fatalf("Your sessions: %d", st)
			}
			if !strings.Contains(b.text(), "SDK e2e client") {
				t.Errorf("Your sessions does not list the SDK client:\n%s", b.text())
			}
			if mode == "cimd" {
				b.screenshot("oauth-sessions")
			}
			b.click("table.sessions button")
			time.Sleep(300 * time.Millisecond) // past --revocation-refresh: the access token is refused too
			io.WriteString(stdin, "revoked\n")
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SDK client (%s): %v\n%s\n%s", mode, err, strings.Join(lines, "\n"), stderr.String())
	}
	return lines
}

// consentInBrowser opens the authorization URL in the signed-in tab and
// allows the client, which sends the browser to the client's loopback
// redirect URI.
func consentInBrowser(t *testing.T, b *tab, authURL, mode string) {
	t.Helper()
	b.do(chromedp.Navigate(authURL), chromedp.WaitVisible(`button[value=allow]`))
	if text := b.text(); !strings.Contains(text, "SDK e2e client") || !strings.Contains(text, "acme/*:write") {
		t.Errorf("the consent page does not name the client and the grants:\n%s", text)
	}
	if mode == "dcr" {
		b.screenshot("oauth-consent")
	}
	if st := b.click(`button[value=allow]`); st != 200 {
		t.Errorf("the client's redirect URI answered %d", st)
	}
}

// redactLine shortens an authorization URL's query to its parameter names.
func redactLine(line string) string {
	if u, ok := strings.CutPrefix(line, "AUTHORIZE "); ok {
		if i := strings.IndexByte(u, '?'); i >= 0 {
			var names []string
			for _, kv := range strings.Split(u[i+1:], "&") {
				names = append(names, strings.SplitN(kv, "=", 2)[0])
			}
			return "AUTHORIZE " + u[:i] + " with " + strings.Join(names, ", ")
		}
	}
	return line
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
