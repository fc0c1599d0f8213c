package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/teammem/teammem/api"
)

// runHealthcheck implements `healthcheck`: exit 0 when the server on --addr
// answers /readyz with 200 (for container images without a shell or curl).
func runHealthcheck(ctx context.Context, args []string, e env) error {
	var addr, tlsCert string
	var timeout time.Duration
	fs := newFlagSet("healthcheck", "teammem-server healthcheck [--addr HOST:PORT] [--timeout 3s]", e.stderr)
	fs.StringVar(&addr, "addr", "127.0.0.1:8080", "the server's listen `HOST:PORT` (the serve flag; an unspecified host means this machine)")
	fs.DurationVar(&timeout, "timeout", 3*time.Second, "how long to wait for the answer")
	fs.StringVar(&tlsCert, "tls-cert", "", "the server's --tls-cert: probe over HTTPS (the certificate is not checked: the probe is local)")
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("healthcheck takes no arguments, got %q", fs.Arg(0))}
	}
	target, err := probeAddr(addr)
	if err != nil {
		return usageError{err}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	scheme, client := "http://", http.DefaultClient
	if tlsCert != "" {
		scheme = "https://"
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a local liveness probe
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+target+api.PathReadyz, nil)
	if err != nil {
		return usageError{err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("server at %s not reachable: %w", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("server at %s not ready: %d %s", target, resp.StatusCode, body)
	}
	fmt.Fprintf(e.stdout, "ready: %s\n", target)
	return nil
}

// probeAddr turns a listen address into one to connect to: an unspecified
// or empty host (":8080", "0.0.0.0:8080", "[::]:8080") becomes loopback.
func probeAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port), nil
}
