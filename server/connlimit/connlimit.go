// Package connlimit caps the client connections an http.Server serves at
// once, as golang.org/x/net/netutil.LimitListener does, and reclaims idle
// ones so that the cap is never held by clients that are not talking.
//
// A keep-alive connection that answered its request and went idle, or a
// socket that was accepted and never sent a byte, holds a slot until the
// server's idle timeout or read-header timeout ends it (120 s and 10 s in
// teammem-server): with LimitListener, a few such clients stall every new
// one, /healthz included. A Limiter follows each connection's state through
// http.Server.ConnState and, when a new connection needs a slot and none is
// free, closes the connection idle the longest (a keep-alive one: the
// client reconnects, as after an idle timeout) or, failing that, the
// longest-silent one accepted more than SilentGrace ago. Near the cap
// (HighWater slots in use) each accepted connection also closes one
// connection idle for more than IdleGrace, keeping headroom for a burst.
// Active connections (a request in flight, an event stream) are never
// closed: only they can make a new client wait.
package connlimit

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a Limiter's reclaim policy.
const (
	DefaultIdleGrace   = time.Second
	DefaultSilentGrace = time.Second
	pollEvery          = 50 * time.Millisecond
)

// Limiter caps connections and reclaims idle ones. Wrap the listener with
// Listener and set the server's ConnState to the Limiter's ConnState.
type Limiter struct {
	slots chan struct{}
	// HighWater is the number of slots in use from which each accepted
	// connection closes one idle for more than IdleGrace (default 90% of
	// the cap).
	HighWater int
	// IdleGrace is how long a connection must have been idle to be closed
	// near the cap (at the cap, the longest idle is closed whatever its
	// age).
	IdleGrace time.Duration
	// SilentGrace is how long a connection accepted without sending a
	// request may hold a slot at the cap.
	SilentGrace time.Duration

	mu        sync.Mutex
	conns     map[net.Conn]connState // keyed as http.Server sees them
	reclaimed atomic.Int64
}

// connState is one connection's last state and when it entered it.
type connState struct {
	state http.ConnState
	since time.Time
}

// New returns a Limiter of max connections (max > 0) with the default
// policy.
func New(max int) *Limiter {
	return &Limiter{slots: make(chan struct{}, max), HighWater: max - max/10,
		IdleGrace: DefaultIdleGrace, SilentGrace: DefaultSilentGrace, conns: map[net.Conn]connState{}}
}

// ConnState records c's state; it is the http.Server's ConnState hook.
func (l *Limiter) ConnState(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, c) // no longer the server's to close
	default:
		l.conns[c] = connState{state: s, since: time.Now()}
	}
}

// Reclaimed returns how many connections the Limiter closed to free a slot.
func (l *Limiter) Reclaimed() int64 { return l.reclaimed.Load() }

// InUse returns the slots taken now.
func (l *Limiter) InUse() int { return len(l.slots) }

// reclaim closes one connection to free a slot and reports whether it did:
// the one idle the longest, if idle for at least idleFor; at the cap
// (atCap), failing that, the one silent the longest since it was accepted,
// if for more than SilentGrace.
func (l *Limiter) reclaim(idleFor time.Duration, atCap bool) bool {
	now := time.Now()
	var idle, silent net.Conn
	var idleSince, silentSince time.Time
	l.mu.Lock()
	for c, st := range l.conns {
		switch {
		case st.state == http.StateIdle && now.Sub(st.since) >= idleFor && (idle == nil || st.since.Before(idleSince)):
			idle, idleSince = c, st.since
		case atCap && st.state == http.StateNew && now.Sub(st.since) > l.SilentGrace && (silent == nil || st.since.Before(silentSince)):
			silent, silentSince = c, st.since
		}
	}
	victim := idle
	if victim == nil {
		victim = silent
	}
	if victim != nil {
		delete(l.conns, victim)
	}
	l.mu.Unlock()
	if victim == nil {
		return false
	}
	l.reclaimed.Add(1)
	_ = victim.Close() // outside the lock: a TLS close may write an alert
	return true
}

// Listener returns ln accepting a connection only while a slot is free.
func (l *Limiter) Listener(ln net.Listener) net.Listener {
	return &listener{Listener: ln, l: l, done: make(chan struct{})}
}

type listener struct {
	net.Listener
	l         *Limiter
	done      chan struct{}
	closeOnce sync.Once
}

// Accept waits for a free slot, reclaiming one when the cap is reached,
// then accepts.
func (ln *listener) Accept() (net.Conn, error) {
	if !ln.acquire() {
		return nil, net.ErrClosed
	}
	c, err := ln.Listener.Accept()
	if err != nil {
		<-ln.l.slots
		return nil, err
	}
	if ln.l.InUse() >= ln.l.HighWater {
		ln.l.reclaim(ln.l.IdleGrace, false)
	}
	return &conn{Conn: c, slots: ln.l.slots}, nil
}

// acquire takes a slot, reclaiming connections while none is free; false
// when the listener was closed meanwhile.
func (ln *listener) acquire() bool {
	select {
	case ln.l.slots <- struct{}{}:
		return true
	default:
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		ln.l.reclaim(0, true)
		select {
		case ln.l.slots <- struct{}{}:
			return true
		case <-ln.done:
			return false
		case <-tick.C:
		}
	}
}

func (ln *listener) Close() error {
	ln.closeOnce.Do(func() { close(ln.done) })
	return ln.Listener.Close()
}

// conn frees its slot on its first Close.
type conn struct {
	net.Conn
	slots  chan struct{}
	closed atomic.Bool
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	if c.closed.CompareAndSwap(false, true) {
		<-c.slots
	}
	return err
}
