// Package httpkit is what the server's HTTP surfaces share (the REST API in
// server/httpapi, the web UI in server/webui, /mcp): the one table from
// errors to statuses and envelopes, the per-request information the
// middleware fills in (request id, repository, caller), the per-subject
// rate limiter, and JSON answers.
package httpkit
