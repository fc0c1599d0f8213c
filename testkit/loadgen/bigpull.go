package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/teammem/teammem/api"
)

// BigPullConfig is the memory benchmark of large downloads: Repos
// repositories of RepoBytes each are seeded, then pulled in full all at
// once, one client per repository, while the server's RSS and its own
// memory (RssAnon + RssShmem) are sampled; after Settle they are read again.
type BigPullConfig struct {
	Server, Token string
	Repos         int           // default 8
	RepoBytes     int           // default 50,000,000
	EntryBytes    int           // default 250,000 (the server's default entry limit)
	Settle        time.Duration // default 1 minute
	ServerPID     int           // the server whose RSS is read (required)
}

// BigPullResult is what BigPull measured.
type BigPullResult struct {
	Repos        int     `json:"repos"`
	RepoMB       float64 `json:"repo_mb"`
	Seconds      float64 `json:"seconds"`       // the concurrent pulls, first start to last end
	BeforeMB     float64 `json:"rss_before_mb"` // before the pulls
	PeakMB       float64 `json:"rss_peak_mb"`
	SettledMB    float64 `json:"rss_settled_mb"`      // Settle after the pulls
	FileMB       float64 `json:"rss_settled_file_mb"` // of SettledMB, the pages of mapped files (see Memory)
	SettleSecond float64 `json:"settle_seconds"`
	// The server's own memory (RssAnon + RssShmem, see Memory.Own): RSS
	// without the file pages, what the pulls themselves cost.
	OwnBeforeMB  float64 `json:"own_before_mb"`
	OwnPeakMB    float64 `json:"own_peak_mb"`
	OwnSettledMB float64 `json:"own_settled_mb"`
}

func (r BigPullResult) String() string {
	return fmt.Sprintf("big-pull %d×%.0f MB: %.1f s; server's own memory (RssAnon+RssShmem) %.0f MB before, peak %.0f MB, %.0f MB %.0f s later; "+
		"RSS %.0f MB before, peak %.0f MB, %.0f MB later (mapped files %.0f MB)",
		r.Repos, r.RepoMB, r.Seconds, r.OwnBeforeMB, r.OwnPeakMB, r.OwnSettledMB, r.SettleSecond,
		r.BeforeMB, r.PeakMB, r.SettledMB, r.FileMB)
}

// BigPull runs the memory benchmark; every pull must return every entry.
func BigPull(ctx context.Context, cfg BigPullConfig) (BigPullResult, error) {
	if cfg.Repos == 0 {
		cfg.Repos = 8
	}
	if cfg.RepoBytes == 0 {
		cfg.RepoBytes = 50_000_000
	}
	if cfg.EntryBytes == 0 {
		cfg.EntryBytes = 250_000
	}
	if cfg.Settle == 0 {
		cfg.Settle = time.Minute
	}
	if cfg.ServerPID <= 0 {
		return BigPullResult{}, fmt.Errorf("big-pull needs the server's pid: %w", ErrConfig)
	}
	n := cfg.RepoBytes / cfg.EntryBytes
	hc := newHTTPClient(cfg.Repos, 10*time.Minute)
	clients := make([]*client, cfg.Repos)
	for i := range clients {
		clients[i] = &client{base: cfg.Server, token: cfg.Token, repo: fmt.Sprintf("loadgen/big-pull-%d", i), http: hc}
		if err := clients[i].seed(ctx, n, cfg.EntryBytes); err != nil {
			return BigPullResult{}, fmt.Errorf("seed %s: %w", clients[i].repo, err)
		}
	}
	hc.CloseIdleConnections()
	res := BigPullResult{Repos: cfg.Repos, RepoMB: float64(n*cfg.EntryBytes) / 1e6, SettleSecond: cfg.Settle.Seconds()}
	before, err := ReadMemory(cfg.ServerPID)
	if err != nil {
		return res, err
	}
	res.BeforeMB, res.OwnBeforeMB = float64(before.RSS)/1e6, float64(before.Own())/1e6
	rss := startRSS(ctx, cfg.ServerPID, 20*time.Millisecond)
	start := time.Now()
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.pullCount(ctx, n) }()
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	last, peak, err := rss.finish()
	res.PeakMB, res.OwnPeakMB = float64(peak)/1e6, float64(max(rss.ownPeak, last.Own()))/1e6
	for _, e := range append(errs, err) {
		if e != nil {
			return res, e
		}
	}
	hc.CloseIdleConnections()
	select {
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(cfg.Settle):
	}
	settled, err := ReadMemory(cfg.ServerPID)
	res.SettledMB, res.FileMB, res.OwnSettledMB = float64(settled.RSS)/1e6, float64(settled.File)/1e6, float64(settled.Own())/1e6
	return res, err
}

// pullCount pulls the repository in full, decoding the body as it arrives,
// and checks it holds want entries.
func (c *client) pullCount(ctx context.Context, want int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url(api.PathTeamMemory), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("pull %s: %w", c.repo, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("pull %s: status %d", c.repo, resp.StatusCode)
	}
	var tm api.TeamMemory
	if err := json.NewDecoder(resp.Body).Decode(&tm); err != nil {
		return fmt.Errorf("pull %s: %w", c.repo, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if len(tm.Content.Entries) != want {
		return fmt.Errorf("pull %s: %d entries, want %d", c.repo, len(tm.Content.Entries), want)
	}
	return nil
}
