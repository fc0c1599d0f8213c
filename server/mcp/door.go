package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/teammem/teammem/server/httpkit"
)

// door is what a POST to /mcp passes before the SDK reads it: the body
// limit, the refusal of JSON-RPC batches (one request is one message, so
// one budget), and the rate limit of a request that is not a tool call (a
// tool call takes its caller's token as it is admitted, and is refused
// with a tool error). Other methods go straight to the SDK, which answers
// them without work (405: the endpoint is stateless).
type door struct {
	next    http.Handler
	maxBody int64
	limiter *httpkit.Limiter
	// limited counts a request refused for the rate limit (may be nil).
	limited func()
}

// JSON-RPC error codes of the door's refusals.
const (
	codeInvalidRequest = -32600
	codeRateLimited    = -32000 // the implementation-defined server error range
)

// firstRevisionWithoutBatches is the MCP revision that removed JSON-RPC
// batches; /mcp negotiates it and later ones only.
const firstRevisionWithoutBatches = "2025-06-18"

func (d *door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		d.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, d.maxBody))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, codeInvalidRequest,
				fmt.Sprintf("the request is over %d bytes, the server's limit for a request body", mbe.Limit))
			return
		}
		writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "the request's body could not be read")
		return
	}
	if isBatch(body) {
		writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest,
			"JSON-RPC batches are not served: send one message per request (MCP "+firstRevisionWithoutBatches+" and later have no batches)")
		return
	}
	if d.limiter != nil {
		if msg := peek(body); msg.isCall() && msg.Method != "tools/call" {
			if err := d.limiter.Allow(httpkit.InfoOf(r.Context()).Subject); err != nil {
				d.refuseRate(w, msg.ID, err)
				return
			}
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	d.next.ServeHTTP(w, r)
}

// message is what the door reads of a request's one message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// isCall reports whether the message expects an answer (a request, not a
// notification).
func (m message) isCall() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// isBatch reports whether a body is a JSON array: a batch.
func isBatch(body []byte) bool {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '['
}

// peek reads a body's message. A body that is not a JSON object reads as
// no message: the SDK refuses it.
func peek(body []byte) message {
	var m message
	_ = json.Unmarshal(body, &m)
	return m
}

// refuseRate answers a request over its caller's rate limit: 429 with
// Retry-After, and a JSON-RPC error saying when to retry.
func (d *door) refuseRate(w http.ResponseWriter, id json.RawMessage, err error) {
	var rl httpkit.RateLimitedError
	if !errors.As(err, &rl) {
		rl.RetryAfter = 1
	}
	if d.limited != nil {
		d.limited()
	}
	w.Header().Set("Retry-After", strconv.Itoa(rl.RetryAfter))
	writeRPCError(w, http.StatusTooManyRequests, id, codeRateLimited, rateLimitMessage(rl.RetryAfter))
}

// rateLimitMessage tells a caller over its rate limit when to retry.
func rateLimitMessage(retryAfter int) string {
	return fmt.Sprintf("rate limit: this token has made more requests than the server allows a second; retry in %d s", retryAfter)
}

// rpcErrorReply is a JSON-RPC error answer.
type rpcErrorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// writeRPCError answers a JSON-RPC error with status (id nil: null, for a
// request whose id is unknown).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(rpcErrorReply{JSONRPC: "2.0", ID: id, Error: rpcError{Code: code, Message: message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
