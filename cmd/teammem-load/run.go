package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/teammem/teammem/testkit/loadgen"
)

// errFailed reports a run that measured failed requests or lost updates.
var errFailed = errors.New("some requests failed or updates were lost")

// run is the whole program: parse, run one scenario or the set, report.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parse(args, getenv, stderr)
	if err != nil {
		return err
	}
	if o.floorAddr != "" {
		return serveFloor(ctx, o.floorAddr, stdout)
	}
	if o.bigPull {
		o.big.Server, o.big.Token, o.big.ServerPID = o.cfg.Server, o.cfg.Token, o.cfg.ServerPID
		r, err := loadgen.BigPull(ctx, o.big)
		if o.json {
			_ = json.NewEncoder(stdout).Encode(r)
		} else {
			fmt.Fprintln(stdout, r)
		}
		return err
	}
	var results []loadgen.Result
	if o.all {
		report := func(r loadgen.Result) {
			if !o.json {
				fmt.Fprintln(stdout, r)
			}
		}
		results, err = loadgen.Suite(ctx, o.cfg, loadgen.Benchmarks, o.runs, report)
	} else {
		var r loadgen.Result
		r, err = loadgen.Run(ctx, o.cfg)
		results = []loadgen.Result{r}
		if !o.json && r.Scenario != "" {
			fmt.Fprintln(stdout, r)
		}
	}
	if o.json && (o.all || results[0].Scenario != "") {
		if jerr := printJSON(stdout, o.all, results); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return err
	}
	for _, r := range results {
		if !r.OK() {
			return fmt.Errorf("%s: %w", r.Scenario, errFailed)
		}
	}
	return nil
}

// serveFloor serves loadgen.FloorHandler on addr until ctx ends.
func serveFloor(ctx context.Context, addr string, stdout io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve floor: %w", err)
	}
	srv := &http.Server{Handler: loadgen.FloorHandler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "floor handler listening on %s (pid %d)\n", ln.Addr(), os.Getpid())
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve floor: %w", err)
	}
	return nil
}

// printJSON writes one JSON object: the result, or {"results": [...]} for -all.
func printJSON(w io.Writer, all bool, results []loadgen.Result) error {
	var v any = results[0]
	if all {
		v = map[string]any{"results": results}
	}
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}
