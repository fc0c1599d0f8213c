// Command teammem-load drives a running teammem server with one of
// testkit/loadgen's scenarios, or with the whole benchmark set (-all), and
// reports requests, errors by status, requests per second, p50/p99 latency
// and, given -server-pid, the server's resident memory and its CPU time per
// request (per acknowledged write for cas).
//
//	teammem-load -server http://127.0.0.1:8080 -token-file admin.token -scenario get-304 -entries 1000 -d 10s
//	teammem-load -all -d 5s -server-pid $(pidof teammem-server) -json
//
// With -serve-floor HOST:PORT it instead serves a handler that does nothing
// but answer; the read and put scenarios driven against it measure the CPU
// per request that net/http and the Go runtime cost before any server work.
//
// It exits 0 when every request succeeded and no update was lost, 1 when
// some did not (or the run could not start), 2 on a usage error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode prints err, if any, and maps it to the exit status.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errHelp):
		return 0
	}
	fmt.Fprintln(stderr, "teammem-load:", err)
	return 1
}
