// Package httpkit is what the server's HTTP surfaces share (the REST API in
// server/httpapi, the web UI in server/webui, /mcp in server/mcp, mounted
// side by side by server/router): the middleware every request passes
// (request ids, the access log and request metrics, panic recovery, the
// Host check and the refusal of cross-site requests, bearer authentication
// and the per-subject rate limit), the per-request information it fills in
// (request id, repository, caller), the one table from errors to statuses
// and envelopes, and JSON answers.
package httpkit
