package httpkit_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server/httpkit"
)

// TestHostsAllows: a strict set answers IP addresses, localhost, the
// listen address's name and the public names, whatever the port, and
// nothing else; a non-strict one answers every name.
func TestHostsAllows(t *testing.T) {
	public := []string{"teammem.example.com", "https://Memory.Example.ORG:8443/ui/", "[2001:db8::1]:443"}
	strict, err := httpkit.NewHosts("box.internal:8080", public, true)
	if err != nil {
		t.Fatal(err)
	}
	open, err := httpkit.NewHosts("127.0.0.1:8080", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		host   string
		strict bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.1:9999", true}, // a port forward
		{"10.1.2.3:8080", true},  // a pod's address
		{"[::1]:8080", true},
		{"[::1]", true},
		{"localhost:8080", true},
		{"LOCALHOST", true},
		{"box.internal:8080", true},
		{"teammem.example.com", true},
		{"TEAMMEM.example.com:443", true},
		{"memory.example.org", true},
		{"", true}, // HTTP/1.0 without Host: no browser's
		{"rebind.attacker.example:8080", false},
		{"attacker.example", false},
		{"teammem.example.com.attacker.example", false},
		{"localhost.attacker.example:8080", false},
		{"127.0.0.1.nip.io:8080", false},
		{"teammem.example.com.:8080", false},
	} {
		if got := strict.Allows(tt.host); got != tt.strict {
			t.Errorf("strict Allows(%q) = %v, want %v", tt.host, got, tt.strict)
		}
		if !open.Allows(tt.host) {
			t.Errorf("non-strict Allows(%q) = false", tt.host)
		}
	}
}

// TestPublicHost: a public name is a host name, HOST:PORT or a URL, of
// which the lower-cased host name counts; anything else is refused.
func TestPublicHost(t *testing.T) {
	for in, want := range map[string]string{
		"teammem.example.com":               "teammem.example.com",
		"Teammem.Example.com:8443":          "teammem.example.com",
		"https://teammem.example.com/ui/":   "teammem.example.com",
		"http://[2001:db8::1]:8080":         "2001:db8::1",
		" xn--bcher-kva.example ":           "xn--bcher-kva.example",
		"10.0.0.7":                          "10.0.0.7",
		"":                                  "",
		"https://":                          "",
		"bücher.example":                    "",
		"teammem.example.com/ui":            "",
		"*.example.com":                     "",
		"teammem example":                   "",
		"http://teammem.example.com:bad/ui": "",
	} {
		got, err := httpkit.PublicHost(in)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("PublicHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := httpkit.NewHosts("", []string{"ok.example", "not ok"}, true); err == nil || !strings.Contains(err.Error(), `"not ok"`) {
		t.Errorf("NewHosts with a bad public name: %v", err)
	}
}

// browserRequest is one request of TestBrowserGuards.
type browserRequest struct {
	name, method, host string
	headers            []string // name, value pairs
	status             int
	code               string
}

// TestBrowserGuards: CheckHost refuses a rebinding Host with 421 (the
// probes and the metrics aside); SameOrigin refuses a foreign Origin or a
// cross-site fetch on any method, SameOriginWrites on writes only;
// NoFormPosts refuses a POST of a form's Content-Type with 415. Each
// refusal is the error envelope; the host refusal is logged.
func TestBrowserGuards(t *testing.T) {
	k := newKit(t, 0)
	hosts, err := httpkit.NewHosts("127.0.0.1:0", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux := http.NewServeMux()
	mux.Handle("/mcp", k.mw.SameOrigin(k.mw.NoFormPosts(ok)))
	mux.Handle("/api/", k.mw.SameOriginWrites(k.mw.NoFormPosts(ok)))
	mux.Handle("/", ok)
	url := k.serve(t, k.mw.CheckHost(hosts)(mux))
	port := url[strings.LastIndex(url, ":"):]
	self := "127.0.0.1" + port
	for _, tt := range []browserRequest{
		{"rebinding Host", http.MethodPut, "rebind.attacker.example" + port, nil, http.StatusMisdirectedRequest, api.CodeMisdirectedRequest},
		{"rebinding Host reading", http.MethodGet, "rebind.attacker.example" + port, nil, http.StatusMisdirectedRequest, api.CodeMisdirectedRequest},
		{"localhost", http.MethodGet, "localhost" + port, nil, http.StatusOK, ""},
		{"liveness probe by a pod's name", http.MethodGet, "teammem-7c9f.pods.internal:8080", nil, http.StatusOK, ""},
		{"text/plain POST", http.MethodPost, self, []string{"Content-Type", "text/plain;charset=UTF-8"}, http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType},
		{"urlencoded POST", http.MethodPost, self, []string{"Content-Type", "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType},
		{"multipart POST", http.MethodPost, self, []string{"Content-Type", "Multipart/Form-Data; boundary=x"}, http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType},
		{"JSON POST", http.MethodPost, self, []string{"Content-Type", "application/json"}, http.StatusOK, ""},
		{"PUT of curl's default type", http.MethodPut, self, []string{"Content-Type", "application/x-www-form-urlencoded"}, http.StatusOK, ""},
		{"cross-site fetch", http.MethodPost, self, []string{"Content-Type", "application/json", "Sec-Fetch-Site", "cross-site"}, http.StatusForbidden, api.CodeCrossSite},
		{"same-site fetch", http.MethodPut, self, []string{"Sec-Fetch-Site", "same-site"}, http.StatusForbidden, api.CodeCrossSite},
		{"foreign Origin", http.MethodPost, self, []string{"Content-Type", "application/json", "Origin", "http://attacker.example"}, http.StatusForbidden, api.CodeCrossSite},
		{"null Origin", http.MethodPost, self, []string{"Content-Type", "application/json", "Origin", "null"}, http.StatusForbidden, api.CodeCrossSite},
		{"own Origin", http.MethodPost, self, []string{"Content-Type", "application/json", "Origin", "http://" + self}, http.StatusOK, ""},
		{"same-origin fetch", http.MethodPost, self, []string{"Content-Type", "application/json", "Sec-Fetch-Site", "same-origin"}, http.StatusOK, ""},
		{"cross-site read", http.MethodGet, self, []string{"Sec-Fetch-Site", "cross-site", "Origin", "http://attacker.example"}, http.StatusOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := "/api/x"
			if tt.name == "liveness probe by a pod's name" {
				path = api.PathHealthz
			}
			checkBrowserRequest(t, url+path, tt)
		})
	}
	for _, tt := range []browserRequest{
		{"MCP from a foreign Origin", http.MethodPost, self, []string{"Content-Type", "application/json", "Origin", "http://attacker.example" + port}, http.StatusForbidden, api.CodeCrossSite},
		{"MCP stream from a foreign Origin", http.MethodGet, self, []string{"Origin", "http://localhost:3000"}, http.StatusForbidden, api.CodeCrossSite},
		{"MCP text/plain", http.MethodPost, self, []string{"Content-Type", "text/plain"}, http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType},
		{"MCP without Origin", http.MethodPost, self, []string{"Content-Type", "application/json"}, http.StatusOK, ""},
		{"MCP from its own Origin", http.MethodGet, "localhost" + port, []string{"Origin", "http://localhost" + port}, http.StatusOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) { checkBrowserRequest(t, url+"/mcp", tt) })
	}
	if logs := k.logs.String(); !strings.Contains(logs, "status=421") || !strings.Contains(logs, "rebind.attacker.example") {
		t.Errorf("the host refusal is not logged:\n%s", logs)
	}
}

// checkBrowserRequest sends tt to url and checks its status and error code.
func checkBrowserRequest(t *testing.T, url string, tt browserRequest) {
	t.Helper()
	req, err := http.NewRequest(tt.method, url, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = tt.host
	for i := 0; i+1 < len(tt.headers); i += 2 {
		req.Header.Set(tt.headers[i], tt.headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var env api.ErrorEnvelope
	_ = json.Unmarshal(body, &env)
	if resp.StatusCode != tt.status || env.Error.Code() != tt.code {
		t.Errorf("%s %s (Host %s): %d %s; want %d %q", tt.method, url, tt.host, resp.StatusCode, body, tt.status, tt.code)
	}
	if tt.code != "" && (env.Error.Message == "" || env.Error.Details["request_id"] == nil) {
		t.Errorf("incomplete envelope: %s", body)
	}
}
